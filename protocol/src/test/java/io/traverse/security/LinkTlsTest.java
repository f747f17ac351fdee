package io.traverse.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.traverse.identity.NodeId;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LinkTlsTest {
    private static EventLoopGroup loops;

    @BeforeAll
    static void start() {
        loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    }

    @AfterAll
    static void stop() {
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    /** Each end learns the other's id from the key it proved, and bytes pass both ways, encrypted. */
    @Test
    void eachEndLearnsThePeersKeyId() throws Exception {
        LinkTls hub = LinkTls.of(IdentityKey.generate());
        LinkTls node = LinkTls.of(IdentityKey.generate());
        CompletableFuture<NodeId> seenByHub = new CompletableFuture<>();
        CompletableFuture<String> hubGot = new CompletableFuture<>();
        Channel server = new ServerBootstrap()
                .group(loops)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(hub.serverHandler(ch.alloc()));
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                                seenByHub.complete(LinkTls.peerId(ctx.pipeline()));
                                hubGot.complete(msg.toString(StandardCharsets.US_ASCII));
                                ctx.writeAndFlush(Unpooled.copiedBuffer("pong", StandardCharsets.US_ASCII));
                            }
                        });
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .sync()
                .channel();
        InetSocketAddress address = (InetSocketAddress) server.localAddress();
        CompletableFuture<String> nodeGot = new CompletableFuture<>();
        CompletableFuture<NodeId> seenByNode = new CompletableFuture<>();
        Channel client = new Bootstrap()
                .group(loops)
                .channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(node.clientHandler(ch.alloc(), address));
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<ByteBuf>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, ByteBuf msg) {
                                seenByNode.complete(LinkTls.peerId(ctx.pipeline()));
                                nodeGot.complete(msg.toString(StandardCharsets.US_ASCII));
                            }
                        });
                    }
                })
                .connect(address)
                .sync()
                .channel();
        try {
            client.writeAndFlush(Unpooled.copiedBuffer("ping", StandardCharsets.US_ASCII));
            assertThat(hubGot.get(10, TimeUnit.SECONDS)).isEqualTo("ping");
            assertThat(nodeGot.get(10, TimeUnit.SECONDS)).isEqualTo("pong");
            assertThat(seenByHub.get()).isEqualTo(node.key().id());
            assertThat(seenByNode.get()).isEqualTo(hub.key().id());
            SslHandler tls = client.pipeline().get(SslHandler.class);
            assertThat(tls.engine().getSession().getProtocol()).isEqualTo("TLSv1.3");
        } finally {
            client.close().sync();
            server.close().sync();
        }
    }

    @Test
    void theIdIsADigestOfThePublicKey() throws Exception {
        IdentityKey key = IdentityKey.generate();
        assertThat(key.id().toString()).hasSize(26).matches("[a-z2-7]+");
        assertThat(IdentityKey.idOf(key.publicKey())).isEqualTo(key.id());
        assertThat(IdentityKey.generate().id()).isNotEqualTo(key.id());
        assertThat(IdentityKey.idOf(LinkTls.certificate(key).getPublicKey())).isEqualTo(key.id());
        assertThat(key.toString()).doesNotContain("PRIVATE");
    }

    @Test
    void halvesOfTwoKeysAreNotAPair() {
        IdentityKey a = IdentityKey.generate();
        IdentityKey b = IdentityKey.generate();
        assertThatThrownBy(() -> IdentityKey.of(a.privateKey(), b.publicKey())).hasMessageContaining("does not belong");
    }
}
