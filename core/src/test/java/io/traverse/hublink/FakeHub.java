package io.traverse.hublink;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.traverse.identity.NodeId;
import io.traverse.wire.Auth;
import io.traverse.wire.Challenge;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkPipeline;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import io.traverse.wire.Lookup;
import io.traverse.wire.LookupKind;
import io.traverse.wire.LookupResult;
import io.traverse.wire.NameBind;
import io.traverse.wire.NameRelease;
import io.traverse.wire.NodeHello;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import io.traverse.wire.Result;
import io.traverse.wire.ResultStatus;
import io.traverse.wire.SideMessage;
import io.traverse.wire.SideMessageError;
import io.traverse.wire.SideMessageKind;
import io.traverse.wire.Welcome;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A one-hub stand-in for the real hub, for unit tests of the node's link in core: the acceptor
 * handshake (with a proof that can be made wrong), name registry, NAME lookups, side messages
 * between its own nodes. The real hub is tested with the node in the hub module.
 */
final class FakeHub implements AutoCloseable {
    private final io.traverse.security.LinkTls tls =
            io.traverse.security.LinkTls.of(io.traverse.security.IdentityKey.generate());
    /** The fake hub's id: its key's, as a real hub's. */
    final NodeId id = tls.key().id();

    final Map<NodeId, Channel> nodes = new ConcurrentHashMap<>();
    final Map<NodeId, String> identities = new ConcurrentHashMap<>();
    /** Counted down at each HELLO received. */
    final java.util.concurrent.CountDownLatch helloSeen = new java.util.concurrent.CountDownLatch(1);
    /** When set, a HELLO is answered only once this opens (a hub slow to answer). */
    volatile java.util.concurrent.CountDownLatch answerHello;

    final Map<String, Object[]> names = new ConcurrentHashMap<>();
    /** Answers to LOOKUPs other than NAME (default for HUBS: this hub). */
    final Map<LookupKind, List<String>> listings = new ConcurrentHashMap<>();

    private final LinkAuthentication authentication;
    private final boolean proveWrongly;
    private final int keepaliveMillis;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final Channel server;
    private volatile boolean silent;

    FakeHub(String token) throws InterruptedException {
        this(token, false, 2000);
    }

    FakeHub(String token, boolean proveWrongly, int keepaliveMillis) throws InterruptedException {
        this(token, proveWrongly, keepaliveMillis, 0);
    }

    /** A hub on loopback {@code port} (0: any free one). */
    FakeHub(String token, boolean proveWrongly, int keepaliveMillis, int port) throws InterruptedException {
        this.authentication = new LinkAuthentication(token);
        this.proveWrongly = proveWrongly;
        this.keepaliveMillis = keepaliveMillis;
        server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        LinkPipeline.installCodec(ch.pipeline());
                        ch.pipeline().addLast(new Acceptor());
                    }
                })
                .bind(InetAddress.getLoopbackAddress(), port)
                .sync()
                .channel();
    }

    InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    /** Stop answering anything (PINGs included): the node's keepalive must notice. */
    void goSilent() {
        silent = true;
    }

    @Override
    public void close() throws InterruptedException {
        if (group.isShuttingDown()) {
            return;
        }
        server.close().sync();
        nodes.values().forEach(Channel::close);
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
    }

    private final class Acceptor extends SimpleChannelInboundHandler<Object> {
        private NodeHello hello;
        private byte[] serverNonce;
        private boolean authenticated;

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Object msg) {
            if (silent) {
                return;
            }
            Channel ch = ctx.channel();
            if (msg instanceof LinkPreamble) {
                ch.writeAndFlush(LinkPreamble.current(LinkRole.HUB).encode(ctx.alloc()));
                // As a hub does: TLS under its key once its preamble has left.
                LinkPipeline.startServerTls(ch.pipeline(), tls.serverHandler(ctx.alloc()));
            } else if (msg instanceof NodeHello h) {
                if (!h.senderId().equals(io.traverse.security.LinkTls.peerId(ch.pipeline()))) {
                    ch.writeAndFlush(Reject.of(RejectCode.AUTH, "id is not the key's"))
                            .addListener(f -> ch.close());
                    return;
                }
                hello = h;
                serverNonce = LinkAuthentication.newNonce();
                helloSeen.countDown();
                Challenge challenge = new Challenge(id, serverNonce);
                java.util.concurrent.CountDownLatch gate = answerHello;
                if (gate == null) {
                    ch.writeAndFlush(challenge);
                } else {
                    Thread held = new Thread(() -> {
                        try {
                            gate.await();
                            ch.eventLoop().execute(() -> ch.writeAndFlush(challenge));
                        } catch (InterruptedException e) {
                            ch.close();
                        }
                    });
                    held.setDaemon(true);
                    held.start();
                }
            } else if (msg instanceof Auth a) {
                if (!authentication.isValidDialerProof(
                        a.mac(), hello.clientNonce(), serverNonce, hello.senderId(), id)) {
                    ch.writeAndFlush(Reject.of(RejectCode.AUTH, "wrong token")).addListener(f -> ch.close());
                    return;
                }
                if (nodes.putIfAbsent(hello.senderId(), ch) != null) {
                    ch.writeAndFlush(Reject.of(
                                    RejectCode.DUPLICATE_ID, "node " + hello.senderId() + " is linked already"))
                            .addListener(f -> ch.close());
                    return;
                }
                authenticated = true;
                identities.put(hello.senderId(), hello.identityText());
                NodeId nodeId = hello.senderId();
                ch.closeFuture().addListener(f -> {
                    nodes.remove(nodeId, ch);
                    names.values().removeIf(v -> v[0].equals(nodeId));
                });
                byte[] proof = authentication.acceptorProof(serverNonce, hello.clientNonce(), id, nodeId);
                if (proveWrongly) {
                    proof[0] ^= 1;
                }
                ch.writeAndFlush(new Welcome(proof, (InetSocketAddress) ch.remoteAddress(), keepaliveMillis));
                LinkPipeline.authenticated(ch.pipeline());
            } else if (!authenticated) {
                ch.close();
            } else if (msg instanceof io.traverse.wire.NodeUpdate u) {
                identities.put(hello.senderId(), u.identityText());
            } else if (msg instanceof io.traverse.wire.Ping p) {
                ch.writeAndFlush(new io.traverse.wire.Pong(p.token()));
            } else if (msg instanceof NameBind b) {
                Object[] mine = {hello.senderId(), b.virtualPort()};
                Object[] held = names.putIfAbsent(b.name(), mine);
                if (held != null && !held[0].equals(hello.senderId())) {
                    ch.writeAndFlush(Result.of(b.requestId(), ResultStatus.NAME_TAKEN, "held by node " + held[0]));
                } else {
                    names.put(b.name(), mine);
                    ch.writeAndFlush(Result.of(b.requestId(), ResultStatus.OK, ""));
                }
            } else if (msg instanceof NameRelease r) {
                names.computeIfPresent(r.name(), (k, v) -> v[0].equals(hello.senderId()) ? null : v);
                ch.writeAndFlush(Result.of(r.requestId(), ResultStatus.OK, ""));
            } else if (msg instanceof Lookup l && l.kind() == LookupKind.NAME) {
                Object[] held = names.get(l.argument());
                ch.writeAndFlush(
                        held == null
                                ? new LookupResult(l.requestId(), ResultStatus.NOT_FOUND, List.of())
                                : new LookupResult(
                                        l.requestId(),
                                        ResultStatus.OK,
                                        List.of(identities.get((NodeId) held[0]) + ":" + held[1])));
            } else if (msg instanceof Lookup l) {
                List<String> entries = listings.getOrDefault(
                        l.kind(),
                        l.kind() == LookupKind.HUBS
                                ? List.of(id + " fake hub 0 "
                                        + address().getAddress().getHostAddress() + ":"
                                        + address().getPort())
                                : List.of());
                ch.writeAndFlush(new LookupResult(
                        l.requestId(),
                        entries.isEmpty() && l.kind() == LookupKind.NODE ? ResultStatus.NOT_FOUND : ResultStatus.OK,
                        entries));
            } else if (msg instanceof SideMessage m) {
                Channel target = nodes.get(m.to());
                if (target != null) {
                    target.writeAndFlush(m.forwarded());
                } else if (m.kind() == SideMessageKind.REQUEST) {
                    ch.writeAndFlush(m.error(SideMessageError.UNKNOWN_NODE, "no hub knows node " + m.to()));
                }
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
