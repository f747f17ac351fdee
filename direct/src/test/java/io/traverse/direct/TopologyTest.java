package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.firewall.FirewallRule;
import io.traverse.identity.NodeIdentity;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Identity check, virtual ports, port ranges and simulated firewalls on loopback. */
@Timeout(60)
class TopologyTest {
    private final TestNodes nodes = new TestNodes();
    private final ExecutorService pool = Executors.newCachedThreadPool();

    @AfterEach
    void stop() throws Exception {
        pool.shutdownNow();
        nodes.close();
    }

    /** Accepts forever, writing each connection's virtual port and node id, then closing it. */
    private void serveIdentity(Traverse node, TraverseServerSocket ss) {
        pool.submit(() -> {
            while (true) {
                try (Socket s = ss.accept()) {
                    s.getOutputStream()
                            .write((node.identity().id().orElseThrow() + ":" + ss.getLocalPort()).getBytes());
                } catch (IOException e) {
                    return null;
                }
            }
        });
    }

    private static String read(Socket s) throws IOException {
        s.setSoTimeout(5_000);
        return new String(s.getInputStream().readAllBytes());
    }

    @Test
    void wrongNodeOnTheFirstAddressIsSkippedAndTheRightNodeReached() throws Exception {
        // Like two sites reusing one private range: the first address of the target's identity
        // leads to another node, which listens on the same virtual port.
        Traverse client = nodes.node("127.0.0.41");
        Traverse impostor = nodes.node("127.0.0.42");
        Traverse target = nodes.node("127.0.0.43");
        TraverseServerSocket impostorServer = impostor.serverSocketFactory().createServerSocket(9000);
        TraverseServerSocket targetServer = target.serverSocketFactory().createServerSocket(9000);
        serveIdentity(impostor, impostorServer);
        serveIdentity(target, targetServer);

        NodeIdentity misleading = NodeIdentity.builder()
                .id(target.identity().id().orElseThrow())
                .address(impostor.identity().addresses().get(0))
                .addresses(target.identity().addresses())
                .build();
        VirtualSocketAddress address = new VirtualSocketAddress(misleading, 9000);
        for (int i = 0; i < 20; i++) {
            try (Socket s = client.socketFactory().createSocket(address.getHostString(), 9000)) {
                assertThat(read(s)).isEqualTo(target.identity().id().orElseThrow() + ":9000");
            }
        }
    }

    /** A listener that is not Traverse: counts connections and closes them at once. */
    private ServerSocket closingCounter(java.util.concurrent.atomic.AtomicInteger count) throws IOException {
        ServerSocket raw = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.57"));
        pool.submit(() -> {
            while (true) {
                try (Socket s = raw.accept()) {
                    count.incrementAndGet();
                } catch (IOException e) {
                    return null;
                }
            }
        });
        return raw;
    }

    @Test
    void theAddressThatWorkedIsTriedFirstNextTime() throws Exception {
        Traverse client = nodes.node("127.0.0.58", b -> b.connectStagger(java.time.Duration.ofSeconds(10)));
        Traverse target = nodes.node("127.0.0.59");
        serveIdentity(target, target.serverSocketFactory().createServerSocket(9000));
        java.util.concurrent.atomic.AtomicInteger deadEnd = new java.util.concurrent.atomic.AtomicInteger();
        try (ServerSocket raw = nodes.track(closingCounter(deadEnd))) {
            NodeIdentity detour = NodeIdentity.builder()
                    .id(target.identity().id().orElseThrow())
                    .address(new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort()))
                    .addresses(target.identity().addresses())
                    .build();
            for (int i = 0; i < 5; i++) {
                try (Socket s = client.socketFactory().createSocket(detour.toText(), 9000)) {
                    assertThat(read(s)).endsWith(":9000");
                }
            }
            assertThat(deadEnd.get()).as("connections that took the detour").isEqualTo(1);
        }
    }

    @Test
    void aTimeoutNamesTheAttemptsStillWaiting() throws Exception {
        Traverse client = nodes.node("127.0.0.60");
        Traverse silent = nodes.node("127.0.0.61", b -> b.firewall(FirewallRule.drop("all")));
        silent.serverSocketFactory().createServerSocket(9000);
        java.util.concurrent.atomic.AtomicInteger deadEnd = new java.util.concurrent.atomic.AtomicInteger();
        try (ServerSocket raw = nodes.track(closingCounter(deadEnd))) {
            InetSocketAddress silentAddress = silent.identity().addresses().get(0);
            NodeIdentity target = NodeIdentity.builder()
                    .id(silent.identity().id().orElseThrow())
                    .address(new InetSocketAddress(raw.getInetAddress(), raw.getLocalPort()))
                    .address(silentAddress)
                    .build();
            Socket s = client.socketFactory().createSocket();
            assertThatThrownBy(() -> s.connect(new VirtualSocketAddress(target, 9000), 500))
                    .isInstanceOf(SocketTimeoutException.class)
                    .hasMessageContaining("127.0.0.57:" + raw.getLocalPort())
                    .hasMessageContaining("127.0.0.61:" + silentAddress.getPort()
                            + ": "); // "no answer before the deadline" or its own timeout
        }
    }

    @Test
    void wrongNodeEverywhereIsNeverReturned() throws Exception {
        Traverse client = nodes.node("127.0.0.44");
        Traverse impostor = nodes.node("127.0.0.45");
        serveIdentity(impostor, impostor.serverSocketFactory().createServerSocket(9000));
        NodeIdentity ghost = NodeIdentity.builder()
                .id(io.traverse.identity.NodeId.random())
                .address(impostor.identity().addresses().get(0))
                .build();
        assertThatThrownBy(() -> client.socketFactory().createSocket(ghost.toText(), 9000))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("reached node " + impostor.identity().id().orElseThrow());
    }

    @Test
    void partialIdentityMatchesAnyNodeWithThoseAddresses() throws Exception {
        Traverse client = nodes.node("127.0.0.46");
        Traverse target = nodes.node("127.0.0.47");
        serveIdentity(target, target.serverSocketFactory().createServerSocket(9000));
        // What a user who only knows host:port of the listener can write.
        String partial = NodeIdentity.builder()
                .address(target.identity().addresses().get(0))
                .build()
                .toText();
        try (Socket s = client.socketFactory().createSocket(partial, 9000)) {
            assertThat(read(s)).startsWith(target.identity().id().orElseThrow().toString());
        }
        InetSocketAddress other = new InetSocketAddress(InetAddress.getByName("127.0.0.99"), 1234);
        String wrongPartial = NodeIdentity.builder()
                .address(target.identity().addresses().get(0))
                .address(other)
                .build()
                .toText();
        assertThatThrownBy(() -> client.socketFactory().createSocket(wrongPartial, 9000))
                .isInstanceOf(IOException.class);
    }

    @Test
    void manyVirtualPortsShareOneListeningPort() throws Exception {
        Traverse client = nodes.node("127.0.0.48");
        Traverse target = nodes.node("127.0.0.49");
        List<TraverseServerSocket> servers = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            TraverseServerSocket ss = target.serverSocketFactory().createServerSocket(i < 50 ? 10_000 + i : 0);
            servers.add(ss);
            serveIdentity(target, ss);
        }
        for (TraverseServerSocket ss : servers) {
            VirtualSocketAddress a = ss.virtualAddress();
            assertThat(a.node().addresses()).allMatch(x -> x.getPort() == target.listeningPort());
            try (Socket s = client.socketFactory().createSocket(a.getHostString(), a.getPort())) {
                assertThat(read(s)).endsWith(":" + a.getPort());
            }
        }
    }

    @Test
    void portRangeSkipsTakenPortsAndFailsClearlyWhenAllAreTaken() throws Exception {
        List<ServerSocket> squatters = new ArrayList<>();
        try {
            int first;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.50"))) {
                first = probe.getLocalPort();
            }
            if (first > 65530) {
                first = 40_000;
            }
            for (int p = first; p < first + 3; p++) {
                squatters.add(new ServerSocket(p, 1, InetAddress.getByName("127.0.0.50")));
            }
            String range = first + "-" + (first + 2) + "," + (first + 3);
            Traverse node = nodes.node("127.0.0.50", b -> b.portRange(range));
            assertThat(node.listeningPort()).isEqualTo(first + 3);
            String full = first + "-" + (first + 2);
            assertThatThrownBy(() -> Traverse.start(TraverseConfig.builder()
                            .bind("127.0.0.50")
                            .portRange(full)
                            .build()))
                    .isInstanceOf(BindException.class)
                    .hasMessageContaining(full);
        } finally {
            for (ServerSocket s : squatters) {
                s.close();
            }
        }
    }

    @Test
    void firewallDeniesBySourceNetworkWithAReason() throws Exception {
        Traverse guarded =
                nodes.node("127.0.1.1", b -> b.firewall(FirewallRule.allow("127.0.1.0/24"), FirewallRule.deny("all")));
        Traverse insider = nodes.node("127.0.1.2");
        Traverse outsider = nodes.node("127.0.2.1");
        TraverseServerSocket ss = guarded.serverSocketFactory().createServerSocket(22);
        serveIdentity(guarded, ss);
        VirtualSocketAddress a = ss.virtualAddress();
        try (Socket s = insider.socketFactory().createSocket(a.getHostString(), 22)) {
            assertThat(read(s)).endsWith(":22");
        }
        assertThatThrownBy(() -> outsider.socketFactory().createSocket(a.getHostString(), 22))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("refused")
                .hasMessageContaining("deny:all")
                .hasMessageContaining("127.0.2.1");
    }

    @Test
    void firewallDropLeavesTheClientWaitingUntilItsTimeout() throws Exception {
        Traverse guarded = nodes.node("127.0.3.1", b -> b.firewall(FirewallRule.drop("127.0.4.0/24")));
        Traverse outsider = nodes.node("127.0.4.1");
        TraverseServerSocket ss = guarded.serverSocketFactory().createServerSocket(22);
        Socket s = outsider.socketFactory().createSocket();
        assertThatThrownBy(() -> s.connect(ss.getLocalSocketAddress(), 400)).isInstanceOf(SocketTimeoutException.class);
    }

    @Test
    void aBurstBeyondTheBacklogWaitsForRoomInsteadOfFailing() throws Exception {
        Traverse target = nodes.node("127.0.0.51");
        Traverse client = nodes.node("127.0.0.52");
        TraverseServerSocket ss = target.serverSocketFactory().createServerSocket(7, 2);
        serveIdentity(target, ss); // accepts one at a time, slower than the burst arrives
        VirtualSocketAddress a = ss.virtualAddress();
        List<Future<String>> burst = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            burst.add(pool.submit(() -> {
                try (Socket s = client.socketFactory().createSocket(a.getHostString(), 7)) {
                    return read(s);
                }
            }));
        }
        for (Future<String> f : burst) {
            assertThat(f.get(30, TimeUnit.SECONDS)).endsWith(":7");
        }
    }

    @Test
    void aBacklogThatStaysFullIsOverloadAfterTheHandshakeTimeout() throws Exception {
        Traverse target = nodes.node("127.0.0.62", b -> b.handshakeTimeout(java.time.Duration.ofMillis(300)));
        Traverse client = nodes.node("127.0.0.63");
        TraverseServerSocket ss = target.serverSocketFactory().createServerSocket(7, 2);
        VirtualSocketAddress a = ss.virtualAddress();
        List<Socket> queued = new ArrayList<>();
        try {
            queued.add(client.socketFactory().createSocket(a.getHostString(), 7));
            queued.add(client.socketFactory().createSocket(a.getHostString(), 7));
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.socketFactory().createSocket(a.getHostString(), 7))
                    .isInstanceOf(ConnectException.class)
                    .hasMessageContaining("overloaded")
                    .hasMessageContaining("backlog of virtual port 7 stayed full");
            assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
                    .isGreaterThanOrEqualTo(java.time.Duration.ofMillis(250));
            ss.accept().close();
            queued.add(client.socketFactory().createSocket(a.getHostString(), 7)); // room again
        } finally {
            for (Socket s : queued) {
                s.close();
            }
        }
    }

    @Test
    void closingAPortFreesTheHandshakesWaitingForIt() throws Exception {
        Traverse target = nodes.node("127.0.0.64");
        Traverse client = nodes.node("127.0.0.65");
        TraverseServerSocket ss = target.serverSocketFactory().createServerSocket(7, 1);
        VirtualSocketAddress a = ss.virtualAddress();
        try (Socket first = client.socketFactory().createSocket(a.getHostString(), 7)) {
            Future<Socket> waiting = pool.submit(() -> client.socketFactory().createSocket(a.getHostString(), 7));
            Thread.sleep(200);
            ss.close();
            assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ConnectException.class)
                    .hasMessageContaining("closed while the connection waited");
        }
    }

    @Test
    void closingTheServerSocketClosesConnectionsNotYetAccepted() throws Exception {
        Traverse target = nodes.node("127.0.0.53");
        Traverse client = nodes.node("127.0.0.54");
        TraverseServerSocket ss = target.serverSocketFactory().createServerSocket(8);
        VirtualSocketAddress a = ss.virtualAddress();
        try (Socket s = client.socketFactory().createSocket(a.getHostString(), 8)) {
            ss.close();
            s.setSoTimeout(5_000);
            Future<Integer> read = pool.submit(() -> s.getInputStream().read());
            assertThat(read.get(5, TimeUnit.SECONDS)).isEqualTo(-1);
        }
    }

    @Test
    void cachedModuleIsUsedForTheSecondConnection() throws Exception {
        Traverse target = nodes.node("127.0.0.55");
        Traverse client = nodes.node("127.0.0.56");
        TraverseServerSocket ss = target.serverSocketFactory().createServerSocket(9);
        serveIdentity(target, ss);
        VirtualSocketAddress a = ss.virtualAddress();
        try (Socket first = client.socketFactory().createSocket(a.getHostString(), 9);
                Socket second = client.socketFactory().createSocket(a.getHostString(), 9)) {
            assertThat(client.connectionInfo(first).orElseThrow().cachedModule())
                    .isFalse();
            assertThat(client.connectionInfo(second).orElseThrow().cachedModule())
                    .isTrue();
            assertThat(client.connectionInfo(second).orElseThrow().module()).isEqualTo("direct");
        }
        assertThat(client.statistics()).anySatisfy(st -> {
            assertThat(st.module()).isEqualTo("direct");
            assertThat(st.successes()).isEqualTo(2);
        });
    }
}
