package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.Traverse;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Connecting over a data link where no frame comes to wake anyone (these hubs ping once a minute):
 * a connect must end at its timeout, or at once when its socket is closed.
 */
class DataLinkRaceTest {
    private static final int PORT = 4300;
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    /** A hub with a long keepalive, so that no hub PING hides a lost wake-up. */
    private Hub quietHub() throws Exception {
        return net.closeLater(Hub.start(HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .name("quiet")
                .token(LoopbackHubNetwork.TOKEN)
                .keepaliveInterval(Duration.ofSeconds(60))
                .build()));
    }

    private Traverse node(Hub hub, boolean dataLink, Duration connectTimeout) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed")
                .hubDataLink(dataLink)
                .connectTimeout(connectTimeout)
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    /** The acceptor never answers (its relayed frames go to a data link nobody reads): connect must give up at its timeout. */
    @Test
    void connectOverADataLinkTimesOutAtItsTimeoutNotTwice() throws Exception {
        Hub hub = quietHub();
        Traverse b = node(hub, false, Duration.ofSeconds(5));
        net.closeLater(DataLinkTest.boundDataLink(hub, b)); // swallows B's OPENs
        Traverse a = node(hub, true, Duration.ofSeconds(2));
        assertThat(DataLinkTest.relayLinkOf(a).dataLinkRelay()).isNotNull();
        VirtualSocketAddress to = new VirtualSocketAddress(b.identity(), PORT);
        long started = System.nanoTime();
        assertThatThrownBy(() -> a.socketFactory()
                        .createSocket(to.getHostString(), to.getPort())
                        .close())
                .isInstanceOf(SocketTimeoutException.class);
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(tookMillis).as("connect timeout 2 s").isLessThan(3_000);
    }

    /** Closing a socket that is connecting (TraverseSocket.close cancels the attempt) ends connect promptly. */
    @Test
    void closingAConnectingSocketOverADataLinkEndsConnectPromptly() throws Exception {
        Hub hub = quietHub();
        Traverse b = node(hub, false, Duration.ofSeconds(5));
        net.closeLater(DataLinkTest.boundDataLink(hub, b));
        Traverse a = node(hub, true, Duration.ofSeconds(10));
        VirtualSocketAddress to = new VirtualSocketAddress(b.identity(), PORT);
        Socket s = a.socketFactory().createSocket();
        CompletableFuture<Long> connecting = CompletableFuture.supplyAsync(() -> {
            try {
                s.connect(to, 10_000);
                return -1L;
            } catch (IOException e) {
                return System.nanoTime();
            }
        });
        Thread.sleep(500);
        long closedAt = System.nanoTime();
        s.close();
        long endedAt = connecting.get(30, TimeUnit.SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(endedAt - closedAt)).isLessThan(1_000);
    }
}
