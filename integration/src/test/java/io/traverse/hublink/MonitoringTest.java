package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.ConnectionInfo;
import io.traverse.ConnectionStatistics;
import io.traverse.HubLinkStatus;
import io.traverse.Protection;
import io.traverse.Traverse;
import io.traverse.TraverseListener;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.firewall.FirewallRule;
import io.traverse.hub.Hub;
import io.traverse.identity.NodeId;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Monitoring on real hubs: per-connection statistics (module, hubs traversed, bytes) for routed
 * and direct connections on both ends, the events listeners hear (connected, connect failed, hub
 * link lost and up, peer unreachable), and the background probe that upgrades a hub's cached
 * module when a path before the winner opens.
 */
class MonitoringTest {
    private static final int PORT = 4200;
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private final ExecutorService threads = net.threads();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
        GatedDirectModule.failuresLeft.set(0);
    }

    private Traverse node(Hub hub, String... modules) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules(modules)
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    @ParameterizedTest(name = "through {0} hub(s)")
    @ValueSource(ints = {1, 3})
    void aRoutedConnectionReportsItsHubsAndExactBytesOnBothEnds(int hubs) throws Exception {
        List<Hub> line = net.line("monitor-", hubs);
        Traverse server = node(line.get(hubs - 1), "routed");
        Traverse client = node(line.get(0), "routed");
        LoopbackHubNetwork.awaitRoute(client, server);
        TraverseServerSocket listening = listen(server);
        int request = 100_003;
        int answer = 12_345;
        try (Socket s = connect(client, addressOf(listening));
                Socket accepted = listening.accept()) {
            s.getOutputStream().write(new byte[request]);
            assertThat(accepted.getInputStream().readNBytes(request)).hasSize(request);
            accepted.getOutputStream().write(new byte[answer]);
            assertThat(s.getInputStream().readNBytes(answer)).hasSize(answer);

            ConnectionStatistics opened = client.connectionStatistics(s).orElseThrow();
            assertThat(opened.module()).isEqualTo("routed");
            assertThat(opened.hubsTraversed()).isEqualTo(hubs);
            assertThat(opened.info().protection()).isEqualTo(Protection.SEALED);
            assertThat(opened.info().accepted()).isFalse();
            assertThat(opened.setupTime()).isPositive();
            assertThat(opened.bytesOut()).isEqualTo(OptionalLong.of(request));
            assertThat(opened.bytesIn()).isEqualTo(OptionalLong.of(answer));

            ConnectionStatistics acceptedStats =
                    server.connectionStatistics(accepted).orElseThrow();
            assertThat(acceptedStats.module()).isEqualTo("routed");
            assertThat(acceptedStats.hubsTraversed()).isEqualTo(hubs);
            assertThat(acceptedStats.info().protection()).isEqualTo(Protection.SEALED);
            assertThat(acceptedStats.info().accepted()).isTrue();
            assertThat(acceptedStats.info().target()).isEqualTo(addressOf(listening));
            assertThat(acceptedStats.bytesIn()).isEqualTo(OptionalLong.of(request));
            assertThat(acceptedStats.bytesOut()).isEqualTo(OptionalLong.of(answer));
        }
    }

    @Test
    void aDirectConnectionCrossesNoHubAndItsBytesAreUnknown() throws Exception {
        Hub hub = net.hub("monitor-direct");
        Traverse server = node(hub, "direct", "routed");
        Traverse client = node(hub, "direct", "routed");
        TraverseServerSocket listening = listen(server);
        // Through an unconnected socket too: statistics follow the connection it delegates to.
        try (Socket s = client.socketFactory().createSocket()) {
            s.connect(addressOf(listening));
            try (Socket accepted = listening.accept()) {
                s.getOutputStream().write(new byte[1000]);
                assertThat(accepted.getInputStream().readNBytes(1000)).hasSize(1000);
                ConnectionStatistics opened = client.connectionStatistics(s).orElseThrow();
                assertThat(opened.module()).isEqualTo("direct");
                assertThat(opened.hubsTraversed()).isZero();
                assertThat(opened.info().protection()).isEqualTo(Protection.NONE);
                assertThat(opened.bytesIn()).isEmpty();
                assertThat(opened.bytesOut()).isEmpty();
                ConnectionStatistics acceptedStats =
                        server.connectionStatistics(accepted).orElseThrow();
                assertThat(acceptedStats.module()).isEqualTo("direct");
                assertThat(acceptedStats.info().accepted()).isTrue();
                assertThat(acceptedStats.hubsTraversed()).isZero();
                assertThat(acceptedStats.info().protection()).isEqualTo(Protection.NONE);
                assertThat(acceptedStats.bytesIn()).isEmpty();
            }
        }
    }

    @Test
    void listenersHearConnectionsMadeAndFailedOnTheNodesEventThread() throws Exception {
        Hub hub = net.hub("monitor-events");
        Traverse server = node(hub, "direct", "routed");
        Traverse client = node(hub, "direct", "routed");
        Events clientEvents = new Events();
        Events serverEvents = new Events();
        client.addListener(clientEvents);
        server.addListener(serverEvents);
        TraverseServerSocket listening = listen(server);
        try (Socket s = connect(client, addressOf(listening));
                Socket accepted = listening.accept()) {
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> clientEvents.connected.size() == 1 && serverEvents.connected.size() == 1);
            assertThat(clientEvents.connected.get(0))
                    .isEqualTo(client.connectionInfo(s).orElseThrow());
            assertThat(serverEvents.connected.get(0))
                    .isEqualTo(server.connectionInfo(accepted).orElseThrow());
        }
        VirtualSocketAddress nowhere = server.address(4999);
        assertThatThrownBy(() -> connect(client, nowhere)).isInstanceOf(ConnectException.class);
        await().atMost(Duration.ofSeconds(5)).until(() -> clientEvents.failed.size() == 1);
        assertThat(clientEvents.failed.get(0)).contains("4999");
        assertThat(clientEvents.threads).allMatch(name -> name.endsWith("-events"));
    }

    @Test
    void listenersHearTheHubLinkLostAndTheFailoverLinkUp() throws Exception {
        Hub first = net.hub("monitor-first");
        Hub second = net.hub("monitor-second", first);
        Traverse node = net.node(LoopbackHubNetwork.config(first, second).build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(node.hubLinkStatus().hubId()).isEqualTo(first.id());
        Events events = new Events();
        node.addListener(events);
        first.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> events.lost.size() == 1 && events.up.size() == 1);
        assertThat(events.lost.get(0)).isEqualTo(first.id());
        assertThat(events.up.get(0).hubId()).isEqualTo(second.id());
    }

    @Test
    void whenTheMiddleHubDiesBothEndsHearThatTheirPeerIsUnreachable() throws Exception {
        List<Hub> line = net.line("monitor-", 3);
        Traverse server = node(line.get(2), "routed");
        Traverse client = node(line.get(0), "routed");
        LoopbackHubNetwork.awaitRoute(client, server);
        Events clientEvents = new Events();
        Events serverEvents = new Events();
        client.addListener(clientEvents);
        server.addListener(serverEvents);
        TraverseServerSocket listening = listen(server);
        Socket s = net.closeLater(connect(client, addressOf(listening)));
        Socket accepted = net.closeLater(listening.accept());
        CompletableFuture.runAsync(
                () -> {
                    try {
                        OutputStream out = s.getOutputStream();
                        while (true) {
                            out.write(new byte[64 * 1024]);
                        }
                    } catch (IOException expected) {
                        // the connection is reset
                    }
                },
                threads);
        CompletableFuture.runAsync(
                () -> {
                    try {
                        InputStream in = accepted.getInputStream();
                        byte[] buffer = new byte[64 * 1024];
                        while (in.read(buffer) >= 0) {
                            // keep reading
                        }
                    } catch (IOException expected) {
                        // the connection is reset
                    }
                },
                threads);
        Thread.sleep(300);
        line.get(1).close();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !clientEvents.unreachable.isEmpty() && !serverEvents.unreachable.isEmpty());
        assertThat(clientEvents.unreachable)
                .containsExactly(server.identity().id().orElseThrow());
        assertThat(serverEvents.unreachable)
                .containsExactly(client.identity().id().orElseThrow());
    }

    @Test
    void whenEveryKernelPathIsBlockedRoutedWinsAndTheProbeChangesNothing() throws Exception {
        Hub hub = net.hub("monitor-firewalled");
        Traverse server = net.node(LoopbackHubNetwork.config(hub)
                .firewall(FirewallRule.drop("all"))
                .connectTimeout(Duration.ofSeconds(2))
                .build());
        Traverse client = net.node(LoopbackHubNetwork.config(hub)
                .firewall(FirewallRule.drop("all"))
                .connectTimeout(Duration.ofSeconds(2))
                .build());
        assertThat(server.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(client.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        Events events = new Events();
        client.addListener(events);
        TraverseServerSocket listening = listen(server);
        try (Socket s = connect(client, addressOf(listening));
                Socket accepted = listening.accept()) {
            assertThat(client.connectionStatistics(s).orElseThrow().module()).isEqualTo("routed");
            assertThat(client.connectionStatistics(s).orElseThrow().hubsTraversed())
                    .isEqualTo(1);
        }
        // The probe of direct and reverse runs into the dropping firewalls and gives up at its deadline.
        Thread.sleep(2500);
        assertThat(events.upgraded).isEmpty();
    }

    /** Accepts every connection until the test ends; the list grows as they come. */
    private List<Socket> acceptEverything(TraverseServerSocket listening) {
        List<Socket> accepted = new CopyOnWriteArrayList<>();
        CompletableFuture.runAsync(
                () -> {
                    try {
                        while (true) {
                            accepted.add(net.closeLater(listening.accept()));
                        }
                    } catch (IOException closed) {
                        // the test is over
                    }
                },
                threads);
        return accepted;
    }

    @Test
    void aReverseProbeDialsBackWithoutHandingTheTargetsApplicationAConnection() throws Exception {
        Hub hub = net.hub("monitor-reverse-probe");
        Traverse server = net.node(LoopbackHubNetwork.config(hub)
                .modules("reverse", "routed")
                .firewall(FirewallRule.deny("all"))
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        Traverse client = node(hub, GatedReverseModule.NAME, "routed");
        assertThat(server.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        Events events = new Events();
        client.addListener(events);
        TraverseServerSocket listening = listen(server);
        List<Socket> serverSide = acceptEverything(listening);
        GatedReverseModule.failuresLeft.set(1);

        try (Socket first = connect(client, addressOf(listening))) {
            assertThat(client.connectionInfo(first).orElseThrow().module()).isEqualTo("routed");
            await().atMost(Duration.ofSeconds(10)).until(() -> events.upgraded.size() == 1);
            assertThat(events.upgraded.get(0)).endsWith(": routed -> " + GatedReverseModule.NAME);
        }
        try (Socket second = connect(client, addressOf(listening))) {
            assertThat(client.connectionInfo(second).orElseThrow().module()).isEqualTo(GatedReverseModule.NAME);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> serverSide.size() == 2);
        Thread.sleep(300);
        assertThat(serverSide)
                .as("the probe's dial-back is closed by the target, not accepted")
                .hasSize(2);
    }

    @Test
    void whenAPathBeforeTheWinnerOpensTheProbeMovesTheHubsCacheEntryToIt() throws Exception {
        Hub hub = net.hub("monitor-upgrade");
        Traverse server = node(hub, "direct", "routed");
        Traverse client = node(hub, GatedDirectModule.NAME, "routed");
        Events events = new Events();
        client.addListener(events);
        TraverseServerSocket listening = listen(server);
        List<Socket> serverSide = acceptEverything(listening);
        GatedDirectModule.failuresLeft.set(1); // the first attempt finds the path closed; the probe finds it open

        try (Socket first = connect(client, addressOf(listening))) {
            ConnectionInfo info = client.connectionInfo(first).orElseThrow();
            assertThat(info.module()).isEqualTo("routed");
            await().atMost(Duration.ofSeconds(10)).until(() -> events.upgraded.size() == 1);
            assertThat(events.upgraded.get(0))
                    .endsWith(": routed -> " + GatedDirectModule.NAME)
                    .startsWith(
                            "hub 127.0.0.1:" + LoopbackHubNetwork.address(hub).getPort());
            first.getOutputStream().write(1);
            assertThat(client.connectionInfo(first).orElseThrow().module())
                    .as("the open connection stays where it is")
                    .isEqualTo("routed");
        }
        try (Socket second = connect(client, addressOf(listening))) {
            ConnectionInfo info = client.connectionInfo(second).orElseThrow();
            assertThat(info.module()).isEqualTo(GatedDirectModule.NAME);
            assertThat(info.cachedModule()).isTrue();
            assertThat(info.hubsTraversed()).isZero();
        }
        // The server accepted the routed connection and the second; the probe reached no application.
        await().atMost(Duration.ofSeconds(5)).until(() -> serverSide.size() == 2);
        Thread.sleep(300);
        assertThat(serverSide).as("the probe is answered, not accepted").hasSize(2);
    }

    /** What a listener heard, and on which threads. */
    private static final class Events implements TraverseListener {
        final List<ConnectionInfo> connected = new CopyOnWriteArrayList<>();
        final List<String> failed = new CopyOnWriteArrayList<>();
        final List<NodeId> unreachable = new CopyOnWriteArrayList<>();
        final List<HubLinkStatus> up = new CopyOnWriteArrayList<>();
        final List<NodeId> lost = new CopyOnWriteArrayList<>();
        final List<String> upgraded = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        private void heard() {
            threads.add(Thread.currentThread().getName());
        }

        @Override
        public void connected(ConnectionInfo connection) {
            heard();
            connected.add(connection);
        }

        @Override
        public void connectFailed(SocketAddress target, IOException failure) {
            heard();
            failed.add(target + ": " + failure.getMessage());
        }

        @Override
        public void peerUnreachable(String module, NodeId peer, String reason) {
            heard();
            unreachable.add(peer);
        }

        @Override
        public void hubLinkUp(HubLinkStatus status) {
            heard();
            up.add(status);
        }

        @Override
        public void hubLinkLost(NodeId hubId, InetSocketAddress hubAddress, String reason) {
            heard();
            lost.add(hubId);
        }

        @Override
        public void pathUpgraded(String cacheKey, String previousModule, String newModule) {
            heard();
            upgraded.add(cacheKey + ": " + previousModule + " -> " + newModule);
        }
    }

    private TraverseServerSocket listen(Traverse server) throws Exception {
        return net.closeLater(server.serverSocketFactory().createServerSocket(PORT));
    }

    private static VirtualSocketAddress addressOf(TraverseServerSocket listening) {
        return (VirtualSocketAddress) listening.getLocalSocketAddress();
    }

    private static Socket connect(Traverse from, VirtualSocketAddress to) throws IOException {
        return from.socketFactory().createSocket(to.getHostString(), to.getPort());
    }
}
