package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.HubLinkStatus;
import io.traverse.SideChannelException;
import io.traverse.SideChannelException.Failure;
import io.traverse.SideChannelHandler;
import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.identity.NodeId;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The node's hub link against {@link FakeHub} on loopback. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HubLinkTest {
    private static final String TOKEN = "s3cret";
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    @Test
    void linksAuthenticatesAndAdvertisesItsHub() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        Traverse node = node(TOKEN, hub.address());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        HubLinkStatus status = node.hubLinkStatus();
        assertThat(status.state()).isEqualTo(HubLinkStatus.State.CONNECTED);
        assertThat(status.hubId()).isEqualTo(hub.id);
        assertThat(status.hubAddress()).isEqualTo(hub.address());
        // what the hub saw: loopback and the node's ephemeral source port
        assertThat(status.observedAddress().getAddress().isLoopbackAddress()).isTrue();
        assertThat(status.observedAddress().getPort()).isPositive();
        assertThat(node.identity().hubs()).first().isEqualTo(hub.address());
        assertThat(hub.identities.get(node.identity().id().orElseThrow()))
                .contains(".h127-0-0-1p" + hub.address().getPort());
    }

    @Test
    void wrongTokenIsRefusedWithAClearReason() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        Traverse node = node("not-the-token", hub.address());
        assertThat(node.awaitHubLink(Duration.ofSeconds(2))).isFalse();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(node.hubLinkStatus().lastFailure())
                        .contains("refused the link: wrong network token"));
        assertThat(hub.nodes).isEmpty();
    }

    @Test
    void aWrongTokenEndsEveryWaitForTheLinkAtOnceWithTheHubsReason() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        Traverse node = node("not-the-token", hub.address());
        // a wait begun before the refusal is released by it, long before its own 30 s
        long start = System.nanoTime();
        assertThat(node.awaitHubLink(Duration.ofSeconds(30))).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
        await().atMost(Duration.ofSeconds(10)).until(() -> node.hubLinkStatus().refusedForSetting());
        assertThat(node.hubLinkStatus().lastFailure()).contains("refused the link: wrong network token");
        // later waits fail at once, naming the refusal: a name, a side-channel request
        long later = System.nanoTime();
        assertThatThrownBy(() -> node.serverSocketFactory().createServerSocket("refused-name", 0))
                .hasMessageContaining("wrong network token");
        assertThatThrownBy(() -> node.sideChannel()
                        .request(node.identity().id().orElseThrow(), "any.service", new byte[1], Duration.ofSeconds(30))
                        .get(20, java.util.concurrent.TimeUnit.SECONDS))
                .hasMessageContaining("wrong network token");
        assertThat(Duration.ofNanos(System.nanoTime() - later)).isLessThan(Duration.ofSeconds(10));
        assertThat(hub.nodes).isEmpty();
    }

    @Test
    void aHubThatCannotProveTheTokenIsRefused() throws Exception {
        FakeHub impostor = hub(new FakeHub(TOKEN, true, 2000));
        Traverse node = node(TOKEN, impostor.address());
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(node.hubLinkStatus().lastFailure())
                        .contains("could not prove it knows the network token"));
        assertThat(node.hubLinkStatus().isConnected()).isFalse();
    }

    @Test
    void aSilentHubIsDeclaredDeadByTheKeepalive() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN, false, 100));
        Traverse node = Traverse.start(config(TOKEN, hub.address())
                .hubKeepalive(Duration.ofMillis(100))
                .build());
        toClose.add(node);
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        hub.goSilent();
        long start = System.nanoTime();
        await().atMost(Duration.ofSeconds(5)).until(() -> !node.hubLinkStatus().isConnected());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(node.hubLinkStatus().lastFailure()).contains("no frame from the hub");
    }

    @Test
    void failsOverToTheNextHubAndBindsItsNamesThere() throws Exception {
        FakeHub first = new FakeHub(TOKEN);
        FakeHub second = hub(new FakeHub(TOKEN));
        toClose.add(first);
        Traverse node =
                Traverse.start(config(TOKEN, first.address(), second.address()).build());
        toClose.add(node);
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(node.hubLinkStatus().hubId()).isEqualTo(first.id);
        TraverseServerSocket server = node.serverSocketFactory().createServerSocket("db-main", 5432);
        toClose.add(server);
        assertThat(first.names).containsKey("db-main");
        first.close();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> second.id.equals(node.hubLinkStatus().hubId()));
        await().atMost(Duration.ofSeconds(10)).until(() -> second.names.containsKey("db-main"));
        assertThat(node.identity().hubs()).first().isEqualTo(second.address());
    }

    @Test
    void aNameHeldByAnotherLiveNodeIsRefusedNamingIt() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        Traverse a = node(TOKEN, hub.address());
        Traverse b = node(TOKEN, hub.address());
        toClose.add(a.serverSocketFactory().createServerSocket("shared", 80));
        assertThatThrownBy(() -> b.serverSocketFactory().createServerSocket("shared", 80))
                .isInstanceOf(BindException.class)
                .hasMessageContaining("'shared'")
                .hasMessageContaining("taken by another node");
        assertThatThrownBy(() -> a.serverSocketFactory().createServerSocket("shared", 81))
                .isInstanceOf(BindException.class)
                .hasMessageContaining("bound on this node already");
        assertThatThrownBy(() -> a.serverSocketFactory().createServerSocket("not_a_name", 82))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("hostname-safe");
        Optional<VirtualSocketAddress> resolved =
                b.hubDirectory().resolveName("SHARED").get(5, TimeUnit.SECONDS);
        assertThat(resolved).isPresent();
        assertThat(resolved.get().node().id()).isEqualTo(a.identity().id());
        assertThat(resolved.get().getPort()).isEqualTo(80);
        assertThat(b.hubDirectory().resolveName("nobody").get(5, TimeUnit.SECONDS))
                .isEmpty();
    }

    @Test
    void directoryListingsAreTypedAndBadEntriesSkipped() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        NodeId h1 = NodeId.of("hub-one");
        NodeId h2 = NodeId.of("hub-two");
        NodeId n1 = NodeId.of("node-one");
        hub.listings.put(
                io.traverse.wire.LookupKind.HUBS,
                List.of("hub-one site a:17000 0 198.18.0.1:17000,[fd00::1]:17000", "hub-two b:17000 1 -", "garbage"));
        hub.listings.put(io.traverse.wire.LookupKind.LINKS, List.of("hub-one hub-two"));
        hub.listings.put(io.traverse.wire.LookupKind.NODES, List.of("node-one hub-one tv1-node-one.a10-0-0-1p5000"));
        hub.listings.put(io.traverse.wire.LookupKind.NAMES, List.of("db-main node-one 5432 hub-one"));
        hub.listings.put(io.traverse.wire.LookupKind.NODE, List.of("hub-one", "198.18.0.1:17000"));
        Traverse node = node(TOKEN, hub.address());
        var d = node.hubDirectory();
        assertThat(d.hubs().get(5, TimeUnit.SECONDS))
                .containsExactly(
                        new io.traverse.HubDirectory.Hub(
                                h1,
                                "site a:17000",
                                0,
                                List.of(
                                        new InetSocketAddress("198.18.0.1", 17000),
                                        new InetSocketAddress("fd00::1", 17000))),
                        new io.traverse.HubDirectory.Hub(h2, "b:17000", 1, List.of()));
        assertThat(d.links().get(5, TimeUnit.SECONDS)).containsExactly(new io.traverse.HubDirectory.Link(h1, h2));
        assertThat(d.nodes().get(5, TimeUnit.SECONDS))
                .singleElement()
                .matches(n -> n.id().equals(n1)
                        && n.hub().equals(h1)
                        && n.identity().addresses().size() == 1);
        assertThat(d.names().get(5, TimeUnit.SECONDS))
                .containsExactly(new io.traverse.HubDirectory.Name("db-main", n1, 5432, h1));
        assertThat(d.locateNode(n1).get(5, TimeUnit.SECONDS))
                .contains(new io.traverse.HubDirectory.NodeLocation(
                        h1, List.of(new InetSocketAddress("198.18.0.1", 17000))));
        hub.listings.put(io.traverse.wire.LookupKind.NODE, List.of());
        assertThat(d.locateNode(n1).get(5, TimeUnit.SECONDS)).isEmpty();
    }

    @Test
    void aClosedServerSocketReleasesItsName() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        Traverse a = node(TOKEN, hub.address());
        a.serverSocketFactory().createServerSocket("short-lived", 80).close();
        await().atMost(Duration.ofSeconds(5)).until(() -> !hub.names.containsKey("short-lived"));
        toClose.add(node(TOKEN, hub.address()).serverSocketFactory().createServerSocket("short-lived", 80));
    }

    @Test
    void sideChannelRequestsAnswersAndEachKindOfFailure() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        Traverse a = node(TOKEN, hub.address());
        Traverse b = node(TOKEN, hub.address());
        NodeId bId = b.identity().id().orElseThrow();
        b.sideChannel()
                .register(
                        "echo",
                        (from, payload) -> (from + ":" + new String(payload, StandardCharsets.UTF_8))
                                .getBytes(StandardCharsets.UTF_8));
        b.sideChannel().register("broken", (from, payload) -> {
            throw new IllegalStateException("out of order");
        });
        b.sideChannel().register("slow", (from, payload) -> {
            Thread.sleep(3000);
            return payload;
        });
        assertThat(a.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(b.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        byte[] answer = a.sideChannel()
                .request(bId, "echo", "hi".getBytes(StandardCharsets.UTF_8))
                .get(10, TimeUnit.SECONDS);
        assertThat(new String(answer, StandardCharsets.UTF_8))
                .isEqualTo(a.identity().id().orElseThrow() + ":hi");

        assertFailure(
                a.sideChannel().request(NodeId.random(), "echo", new byte[0]),
                Failure.UNKNOWN_NODE,
                "no hub knows node");
        assertFailure(a.sideChannel().request(bId, "nothing", new byte[0]), Failure.NO_SERVICE, "no service 'nothing'");
        assertFailure(a.sideChannel().request(bId, "broken", new byte[0]), Failure.HANDLER_FAILED, "out of order");
        assertFailure(
                a.sideChannel().request(bId, "slow", new byte[0], Duration.ofMillis(200)),
                Failure.TIMEOUT,
                "within 200 ms");
        assertThatThrownBy(() -> a.sideChannel().request(bId, "echo", new byte[16 * 1024 + 1]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("exceeds");
        assertThatThrownBy(() -> b.sideChannel().register("echo", (f, p) -> p))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aHandlerThatAnswersAtOnceRunsOnTheLinkThreadAndOthersOnHandlerThreads() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        Traverse a = node(TOKEN, hub.address());
        Traverse b = node(TOKEN, hub.address());
        NodeId bId = b.identity().id().orElseThrow();
        b.sideChannel()
                .register(
                        "thread",
                        (from, payload) -> Thread.currentThread().getName().getBytes(StandardCharsets.UTF_8));
        b.sideChannel()
                .register(
                        "at-once",
                        atOnce((from, payload) ->
                                Thread.currentThread().getName().getBytes(StandardCharsets.UTF_8)));
        b.sideChannel().register("at-once-broken", atOnce((from, payload) -> {
            throw new IllegalStateException("out of order at once");
        }));
        assertThat(a.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(b.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        String pooled = new String(
                a.sideChannel().request(bId, "thread", new byte[0]).get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        String atOnce = new String(
                a.sideChannel().request(bId, "at-once", new byte[0]).get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8);
        assertThat(atOnce).startsWith("traverse-hublink-");
        assertThat(pooled).doesNotStartWith("traverse-hublink-");
        assertFailure(
                a.sideChannel().request(bId, "at-once-broken", new byte[0]),
                Failure.HANDLER_FAILED,
                "out of order at once");
        // The link survives a handler that threw on its thread.
        assertThat(a.sideChannel().request(bId, "at-once", new byte[0]).get(10, TimeUnit.SECONDS))
                .isNotEmpty();
    }

    /** {@code answer}, declared to answer at once. */
    private static SideChannelHandler atOnce(SideChannelHandler answer) {
        return new SideChannelHandler() {
            @Override
            public byte[] answer(NodeId from, byte[] payload) throws Exception {
                return answer.answer(from, payload);
            }

            @Override
            public boolean answersAtOnce() {
                return true;
            }
        };
    }

    @Test
    void requestsMadeWhileTheLinkIsComingUpWaitForIt() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        Traverse b = node(TOKEN, hub.address());
        b.sideChannel().register("echo", (from, payload) -> payload);
        assertThat(b.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        Traverse a = node(TOKEN, hub.address()); // no wait: the request is made at once
        byte[] answer = a.sideChannel()
                .request(b.identity().id().orElseThrow(), "echo", new byte[] {7})
                .get(10, TimeUnit.SECONDS);
        assertThat(answer).containsExactly(7);
        Traverse c = node(TOKEN, hub.address());
        assertThat(c.hubDirectory().resolveName("nobody").get(10, TimeUnit.SECONDS))
                .isEmpty();
    }

    @Test
    void withoutAnyHubTheNodeSaysSoAtOnce() throws Exception {
        Traverse node = Traverse.start(
                TraverseConfig.builder().bind("127.0.0.1").discovery(false).build());
        toClose.add(node);
        await().atMost(Duration.ofSeconds(5)).until(() -> node.hubLinkStatus().state() == HubLinkStatus.State.NO_HUB);
        assertFailure(node.sideChannel().request(NodeId.random(), "echo", new byte[0]), Failure.NO_HUB, "no hub");
        long start = System.nanoTime();
        assertThatThrownBy(() -> node.serverSocketFactory().createServerSocket("lonely", 80))
                .isInstanceOf(SocketException.class)
                .hasMessageContaining("no hub");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(node.awaitHubLink(Duration.ofSeconds(1))).isFalse();
    }

    @Test
    void withNoHubConfiguredDiscoveryFindsOne() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        java.net.DatagramSocket responder = new java.net.DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        toClose.add(responder);
        Thread answering = new Thread(() -> {
            byte[] buf = new byte[100];
            while (!responder.isClosed()) {
                try {
                    java.net.DatagramPacket p = new java.net.DatagramPacket(buf, buf.length);
                    responder.receive(p);
                    var probe = io.traverse.discovery.DiscoveryDatagram.decodeProbe(p.getData(), p.getLength());
                    byte[] answer = io.traverse.discovery.DiscoveryDatagram.encode(
                            new io.traverse.discovery.DiscoveryDatagram.Answer(
                                    probe.nonce(),
                                    "fake-hub",
                                    List.of(new InetSocketAddress(
                                            "0.0.0.0", hub.address().getPort()))));
                    responder.send(new java.net.DatagramPacket(answer, answer.length, p.getSocketAddress()));
                } catch (Exception e) {
                    // closed, or not a probe
                }
            }
        });
        answering.setDaemon(true);
        answering.start();
        Traverse node = Traverse.start(TraverseConfig.builder()
                .bind("127.0.0.1")
                .token(TOKEN)
                .discoveryPort(responder.getLocalPort())
                .build());
        toClose.add(node);
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(node.hubLinkStatus().hubId()).isEqualTo(hub.id);
        assertThat(node.hubLinkStatus().hubAddress()).isEqualTo(hub.address());
    }

    @Test
    void discoveryNeitherDelaysStartNorPlainHostNames() throws Exception {
        try (java.net.ServerSocket plain =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            long start = System.nanoTime();
            Traverse node =
                    Traverse.start(TraverseConfig.builder().bind("127.0.0.1").build()); // discovery on, no hubs
            toClose.add(node);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
            start = System.nanoTime();
            try (java.net.Socket s = node.socketFactory().createSocket("localhost", plain.getLocalPort())) {
                assertThat(s.isConnected()).isTrue();
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
        }
    }

    @Test
    void hostNamesNoNodeHoldsGoToDnsAsBefore() throws Exception {
        FakeHub hub = hub(new FakeHub(TOKEN));
        Traverse node = node(TOKEN, hub.address());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        try (java.net.ServerSocket plain = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
                java.net.Socket s = node.socketFactory().createSocket("localhost", plain.getLocalPort())) {
            assertThat(s.getClass()).isEqualTo(java.net.Socket.class);
        }
        assertThatThrownBy(() -> node.socketFactory().createSocket("no-such-name.invalid", 80))
                .isInstanceOf(java.net.UnknownHostException.class)
                .hasMessageContaining("no-such-name.invalid")
                .hasMessageContaining("no live node holds this name");
    }

    private static void assertFailure(
            java.util.concurrent.CompletableFuture<byte[]> request, Failure failure, String text) {
        assertThatThrownBy(() -> request.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(SideChannelException.class)
                .hasMessageContaining(text)
                .matches(e -> ((SideChannelException) e).failure() == failure, "failure " + failure);
    }

    @Test
    void waitsForALinkThatDoesNotComeLeaveNothingBehindAndAWaitEndsWhenTheLinkComes() throws Exception {
        try (java.net.ServerSocket silent =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            FakeHub hub = hub(new FakeHub(TOKEN));
            // The silent "hub" first: the real one is dialled 500 ms later.
            HubLink link = link(config(TOKEN, new InetSocketAddress("127.0.0.1", silent.getLocalPort()), hub.address())
                    .build());
            java.util.concurrent.CompletableFuture<Void> kept = link.whenUp();
            for (int i = 0; i < 10_000; i++) {
                link.whenUp().cancel(false); // connects whose race was decided while the hub was not there yet
            }
            assertThat(link.pendingUpWaiters()).as("cancelled waits are gone").isLessThanOrEqualTo(1);
            kept.get(10, TimeUnit.SECONDS);
            assertThat(link.status().isConnected()).isTrue();
            assertThat(link.pendingUpWaiters()).isZero();
            assertThat(link.whenUp()).as("linked: done at once").isDone();
        }
    }

    @Test
    void aWaitForALinkFailsAtOnceWithoutAHubAndWhenTheNodeCloses() throws Exception {
        HubLink none = link(config(TOKEN).build());
        await().atMost(Duration.ofSeconds(5)).until(() -> none.status().state() == HubLinkStatus.State.NO_HUB);
        assertThat(none.whenUp()).isCompletedExceptionally();

        try (java.net.ServerSocket silent =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            HubLink connecting = link(config(TOKEN, new InetSocketAddress("127.0.0.1", silent.getLocalPort()))
                    .build());
            java.util.concurrent.CompletableFuture<Void> waiting = connecting.whenUp();
            assertThat(waiting).isNotDone();
            connecting.close();
            assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SideChannelException.class)
                    .hasMessageContaining("closed");
            assertThat(connecting.pendingUpWaiters()).isZero();
        }
    }

    private HubLink link(TraverseConfig config) {
        io.traverse.security.IdentityKey key = io.traverse.security.IdentityKey.generate();
        NodeId id = key.id();
        HubLink link = HubLink.start(
                config,
                key,
                hub -> io.traverse.identity.NodeIdentity.builder()
                        .id(id)
                        .hub(hub)
                        .build(),
                hub -> {},
                new io.traverse.TraverseListener() {});
        toClose.add(link);
        return link;
    }

    private FakeHub hub(FakeHub hub) {
        toClose.add(hub);
        return hub;
    }

    private Traverse node(String token, InetSocketAddress... hubs) throws Exception {
        Traverse node = Traverse.start(config(token, hubs).build());
        toClose.add(node);
        return node;
    }

    private static TraverseConfig.Builder config(String token, InetSocketAddress... hubs) {
        return TraverseConfig.builder()
                .bind("127.0.0.1")
                .token(token)
                .hubs(List.of(hubs))
                .discovery(false)
                .hubTimeout(Duration.ofSeconds(5));
    }
}
