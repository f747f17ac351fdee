package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Admission control seen by applications on real nodes: a connect beyond a hub's limit fails
 * with a ConnectException that names the limit's key while the connections already open stream on
 * (length and SHA-256 checked), and a node killed with its connections open gives them back at once.
 */
class RoutedAdmissionTest {
    private static final int PORT = 4200;
    private static final int READ_SIZE = 37 * 1024;
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private final ExecutorService threads = net.threads();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    @Test
    void aConnectBeyondTheNodesLimitFailsWithTheKeyWhileOpenConnectionsStreamOn() throws Exception {
        int bytes = 16 * 1024 * 1024;
        Hub hub = net.hub("admission-stream", b -> b.maxRelayedPerNode(2));
        Traverse server = node(hub);
        Traverse client = node(hub);
        TraverseServerSocket listening =
                net.closeLater(server.serverSocketFactory().createServerSocket(PORT));
        List<CompletableFuture<byte[]>> served = new ArrayList<>();
        List<CompletableFuture<byte[]>> received = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Socket s = net.closeLater(connect(client, addressOf(listening)));
            Socket accepted = net.closeLater(listening.accept());
            long seed = i * 2L;
            served.add(CompletableFuture.supplyAsync(() -> exchange(accepted, seed + 1, bytes), threads));
            received.add(CompletableFuture.supplyAsync(() -> exchange(s, seed, bytes), threads));
        }
        assertThat(relayed(hub)).isEqualTo(2);

        assertThatThrownBy(() -> connect(client, addressOf(listening)))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining(
                        "OVERLOAD: node " + client.identity().id().orElseThrow() + " has 2 relayed connections")
                .hasMessageContaining("the most traverse.hub.max.relayed.per.node allows");
        assertThat(received.get(0))
                .as("still streaming when the third was refused")
                .isNotDone();

        for (int i = 0; i < 2; i++) {
            assertThat(received.get(i).get(60, TimeUnit.SECONDS))
                    .as("client end %d", i)
                    .isEqualTo(expectedDigest(i * 2L + 1, bytes));
            assertThat(served.get(i).get(60, TimeUnit.SECONDS))
                    .as("server end %d", i)
                    .isEqualTo(expectedDigest(i * 2L, bytes));
        }
        // Both ends closed: their places are free again.
        await().atMost(Duration.ofSeconds(5)).until(() -> relayed(hub) == 0);
        try (Socket again = connect(client, addressOf(listening));
                Socket accepted = listening.accept()) {
            again.getOutputStream().write(42);
            assertThat(accepted.getInputStream().read()).isEqualTo(42);
        }
    }

    @Test
    void aNodeKilledWithAHundredConnectionsGivesThemBackAtOnce() throws Exception {
        int connections = 100;
        Hub hub = net.hub("admission-kill");
        Traverse server = node(hub);
        SocketCutter cutter = net.closeLater(new SocketCutter(LoopbackHubNetwork.address(hub), threads));
        Traverse client = net.node(LoopbackHubNetwork.config()
                .hubs(List.of(cutter.address()))
                .modules("routed")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(client.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        TraverseServerSocket listening =
                net.closeLater(server.serverSocketFactory().createServerSocket(PORT, connections));
        List<Socket> accepted = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Socket s = net.closeLater(connect(client, addressOf(listening)));
            Socket in = net.closeLater(listening.accept());
            s.getOutputStream().write(i & 0xff);
            assertThat(in.getInputStream().read()).isEqualTo(i & 0xff);
            accepted.add(in);
        }
        assertThat(relayed(hub)).isEqualTo(connections);

        long killed = System.nanoTime();
        assertThat(cutter.cutAll()).isPositive();
        await().atMost(Duration.ofSeconds(3)).until(() -> relayed(hub) == 0);
        for (Socket in : accepted) {
            in.setSoTimeout(3000);
            assertThatThrownBy(() -> readToEnd(in.getInputStream()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("Connection reset");
        }
        assertThat(Duration.ofNanos(System.nanoTime() - killed))
                .as("the server's ends learn from the hub, not from silence")
                .isLessThan(Duration.ofSeconds(3));
    }

    private Traverse node(Hub hub) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    private static double relayed(Hub hub) {
        return hub.metrics()
                .registry()
                .get("traverse.hub.relayed.connections")
                .gauge()
                .value();
    }

    private static void readToEnd(InputStream in) throws IOException {
        while (in.read() >= 0) {
            // until the reset
        }
    }

    private static VirtualSocketAddress addressOf(TraverseServerSocket listening) {
        return (VirtualSocketAddress) listening.getLocalSocketAddress();
    }

    private static Socket connect(Traverse from, VirtualSocketAddress to) throws IOException {
        return from.socketFactory().createSocket(to.getHostString(), to.getPort());
    }

    private byte[] exchange(Socket s, long seed, int bytes) {
        try {
            return SeededStreams.exchange(s, threads, SeededStreams.EVEN, seed, bytes, () -> READ_SIZE);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] expectedDigest(long seed, int bytes) throws Exception {
        return SeededStreams.expectedDigest(SeededStreams.EVEN, seed, bytes);
    }
}
