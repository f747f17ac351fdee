package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import io.traverse.TraverseConfig;
import io.traverse.identity.NodeId;
import io.traverse.spi.LongPollTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** Core's own class path has no traverse-longpoll: what a link that needs a session is told. */
class LongPollTransportsTest {
    @Test
    void withoutATransportOnTheClassPathASessionFailsWithALineThatSaysWhy() throws Exception {
        LongPollTransport transport = LongPollTransports.load();
        EventLoop loop = new DefaultEventLoop();
        try {
            CompletableFuture<LongPollTransport.Session> opened = transport.open(
                    loop,
                    LinkEventLoops.channelClass(),
                    new LongPollTransport.Way(new InetSocketAddress("127.0.0.1", 17000), null, null),
                    NodeId.random(),
                    TraverseConfig.defaults().longPoll(),
                    1000);

            assertThat(opened).isCompletedExceptionally();
            ExecutionException failure =
                    org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, opened::get);
            assertThat(failure.getCause())
                    .isInstanceOf(HubLinkException.class)
                    .hasMessage("cannot open a long-poll session with hub 127.0.0.1:17000: no long-poll"
                            + " transport is on the class path (it comes with traverse-longpoll)");
        } finally {
            loop.shutdownGracefully();
        }
    }
}
