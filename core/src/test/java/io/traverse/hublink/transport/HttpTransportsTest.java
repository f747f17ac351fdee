package io.traverse.hublink.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.traverse.TraverseConfig;
import io.traverse.config.HttpProxy;
import io.traverse.identity.NodeId;
import io.traverse.spi.HttpTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Core's own class path has no traverse-longpoll: what a link that needs HTTP is told. */
class HttpTransportsTest {
    @Test
    void withoutATransportOnTheClassPathASessionFailsWithALineThatSaysWhy() throws Exception {
        HttpTransport transport = HttpTransports.load();
        EventLoop loop = new DefaultEventLoop();
        try {
            CompletableFuture<HttpTransport.Session> opened = transport.open(
                    loop,
                    LinkEventLoops.channelClass(),
                    new HttpTransport.Way(new InetSocketAddress("127.0.0.1", 17000), null, null),
                    NodeId.random(),
                    TraverseConfig.defaults().longPoll(),
                    1000);

            assertThat(opened).isCompletedExceptionally();
            ExecutionException failure =
                    org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, opened::get);
            assertThat(failure.getCause())
                    .isInstanceOf(HubLinkException.class)
                    .hasMessage("cannot open a long-poll session to hub 127.0.0.1:17000: no HTTP"
                            + " transport is on the class path (it comes with traverse-longpoll)");
        } finally {
            loop.shutdownGracefully();
        }
    }

    @Test
    void withoutATransportOnTheClassPathACONNECTTunnelFailsWithALineThatSaysWhy() {
        HttpTransport transport = HttpTransports.load();
        HttpProxy proxy = TraverseConfig.builder()
                .httpProxy("10.0.3.1:3128")
                .build()
                .httpProxy()
                .orElseThrow();
        HttpTransport.Way way = new HttpTransport.Way(
                new InetSocketAddress("127.0.0.1", 17000), proxy, new InetSocketAddress("10.0.3.1", 3128));
        String expected = "cannot open a tunnel through HTTP proxy 10.0.3.1:3128 to hub 127.0.0.1:17000: no HTTP"
                + " transport is on the class path (it comes with traverse-longpoll)";

        assertThat(transport.tunnel(new EmbeddedChannel().pipeline(), way, 1000))
                .failsWithin(java.time.Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOf(HubLinkException.class)
                .withMessage(expected);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> transport.tunnel(
                        new HttpTransport.BlockingStream() {
                            @Override
                            public void write(java.nio.ByteBuffer bytes) {
                                throw new AssertionError("nothing may be written");
                            }

                            @Override
                            public io.netty.buffer.ByteBuf fill(int bytes) {
                                throw new AssertionError("nothing may be read");
                            }
                        },
                        way))
                .isInstanceOf(HubLinkException.class)
                .hasMessage(expected);
    }
}
