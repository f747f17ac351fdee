package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose hub link is a long-poll session (issue 14): the link's byte stream in HTTP bodies
 * on the hub's link port, straight to the hub ({@code traverse.http.tunnel=longpoll}) or through
 * tinyproxy refusing CONNECT. Routed connections, accepted and connected, carry 16 MiB each way
 * (SHA-256, half-close) over it.
 */
class LongPollLinkTest {
    private static final int BYTES = 16 * 1024 * 1024;
    private static final int PORT = 4400;
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private final ExecutorService threads = net.threads();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    private Traverse longPollNode(Hub hub, String modules) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub).modules(modules.split(",")).set("traverse.http.tunnel", "longpoll")
                .connectTimeout(Duration.ofSeconds(10)).build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).as("linked by long-poll: %s", node.hubLinkStatus()).isTrue();
        return node;
    }

    private Traverse plainNode(Hub hub, String modules) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub).modules(modules.split(",")).connectTimeout(Duration.ofSeconds(10)).build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    @Test
    void routedConnectionsCarry16MiBEachWayOverALongPollSessionInBothDirections() throws Exception {
        Hub hub = net.hub("longpoll-hub");
        Traverse polling = longPollNode(hub, "routed");
        Traverse outside = plainNode(hub, "routed");
        assertThat(polling.hubLongPollRoute()).hasValueSatisfying(r -> assertThat(r).startsWith("long-poll session with hub 127.0.0.1:"));
        assertThat(outside.hubLongPollRoute()).isEmpty();
        assertThat(hub.longPollSessions()).isEqualTo(1);

        exchange16MiB(outside, polling, "routed");
        exchange16MiB(polling, outside, "routed");
    }

    void exchange16MiB(Traverse client, Traverse server, String module) throws Exception {
        LoopbackHubNetwork.awaitRoute(client, server);
        try (TraverseServerSocket listening = (TraverseServerSocket) server.serverSocketFactory().createServerSocket(PORT)) {
            CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(() -> {
                try (Socket s = listening.accept()) {
                    return SeededStreams.exchange(s, threads, SeededStreams.EVEN, 2, BYTES, () -> 29 * 1024);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, threads);
            VirtualSocketAddress to = server.address(PORT);
            try (Socket s = client.socketFactory().createSocket(to.getHostString(), to.getPort())) {
                assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo(module);
                byte[] received = SeededStreams.exchange(s, threads, SeededStreams.EVEN, 1, BYTES, () -> 29 * 1024);
                assertThat(received).isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 2, BYTES));
            }
            assertThat(served.get(60, TimeUnit.SECONDS)).isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 1, BYTES));
        }
    }
}
