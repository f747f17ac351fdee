package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.HubLinkStatus;
import io.traverse.SideChannelException;
import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import io.traverse.identity.NodeId;
import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Nodes on real hubs (loopback, ephemeral ports): authentication, identity, failover, side channel. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class NodeOnHubNetworkTest {
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    @Test
    void nodeLinksAndAuthenticatesAndAdvertisesItsHub() throws Exception {
        Hub hub = net.hub("hub-a");
        Traverse node = net.node(hub);
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        HubLinkStatus status = node.hubLinkStatus();
        assertThat(status.hubId()).isEqualTo(LoopbackHubNetwork.id(hub));
        assertThat(status.hubAddress()).isEqualTo(LoopbackHubNetwork.address(hub));
        assertThat(status.observedAddress().getAddress().isLoopbackAddress()).isTrue();
        assertThat(node.identity().hubs()).first().isEqualTo(LoopbackHubNetwork.address(hub));
        // the hub knows the node by its identity
        NodeId self = node.identity().id().orElseThrow();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(node.hubDirectory().nodes().get(5, TimeUnit.SECONDS))
                        .anySatisfy(n -> assertThat(n.id()).isEqualTo(self)));
    }

    @Test
    void aNodeWithoutConfiguredHubsFindsOneByDiscovery() throws Exception {
        Hub hub = net.hub("hub-found");
        // The responder the hub answers probes with, on a free port (17000 may be taken on a test machine).
        io.traverse.hub.discovery.DiscoveryResponder responder =
                net.closeLater(io.traverse.hub.discovery.DiscoveryResponder.builder(
                                hub.name(), () -> java.util.List.of(LoopbackHubNetwork.address(hub)))
                        .port(0)
                        .build());
        responder.start();
        Traverse node = net.node(LoopbackHubNetwork.config()
                .discovery(true)
                .discoveryPort(responder.localAddress().getPort())
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(node.hubLinkStatus().hubId()).isEqualTo(LoopbackHubNetwork.id(hub));
    }

    @Test
    void wrongTokenIsRefusedWithAClearError() throws Exception {
        Hub hub = net.hub("hub-a");
        Traverse node = net.node(LoopbackHubNetwork.config(hub).token("wrong").build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(2))).isFalse();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(node.hubLinkStatus().lastFailure())
                        .contains("refused the link")
                        .contains("token"));
    }

    @Test
    void aSecondNodeWithALiveNodesKeyIsRefused() throws Exception {
        // Two processes started with one key file (a copied configuration): one id, and the second is refused.
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("traverse-key");
        java.nio.file.Path key = dir.resolve("node.key");
        Hub hub = net.hub("hub-a");
        Traverse first = net.node(LoopbackHubNetwork.config(hub).keyFile(key).build());
        assertThat(first.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        Traverse impostor = net.node(LoopbackHubNetwork.config(hub).keyFile(key).build());
        String id = first.identity().id().orElseThrow().toString();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(impostor.hubLinkStatus().lastFailure())
                        .contains("refused the link")
                        .contains(id));
        assertThat(impostor.hubLinkStatus().isConnected()).isFalse();
        assertThat(first.hubLinkStatus().isConnected()).isTrue();
    }

    @Test
    void failsOverToTheSecondHubAndItsNamesSurvive() throws Exception {
        Hub first = net.hub("hub-first");
        Hub second = net.hub("hub-second", first);
        Traverse server = net.node(first, second);
        Traverse observer = net.node(second);
        assertThat(server.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(server.hubLinkStatus().hubId()).isEqualTo(LoopbackHubNetwork.id(first));
        TraverseServerSocket socket =
                net.closeLater(server.serverSocketFactory().createServerSocket("survivor", 4000));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> observer.hubDirectory()
                        .resolveName("survivor")
                        .get(5, TimeUnit.SECONDS)
                        .isPresent());

        first.close();
        await().atMost(Duration.ofSeconds(15))
                .until(() -> LoopbackHubNetwork.id(second)
                        .equals(server.hubLinkStatus().hubId()));
        assertThat(server.identity().hubs()).first().isEqualTo(LoopbackHubNetwork.address(second));
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
            Optional<VirtualSocketAddress> found =
                    observer.hubDirectory().resolveName("survivor").get(5, TimeUnit.SECONDS);
            assertThat(found).isPresent();
            assertThat(found.get().node().id()).isEqualTo(server.identity().id());
            assertThat(found.get().node().hubs()).first().isEqualTo(LoopbackHubNetwork.address(second));
        });
        assertThat(socket.name()).contains("survivor");
        // bound again at the second hub, not only remembered from the first one's gossip
        await().atMost(Duration.ofSeconds(15))
                .untilAsserted(() -> assertThat(observer.hubDirectory().names().get(5, TimeUnit.SECONDS))
                        .containsExactly(new io.traverse.HubDirectory.Name(
                                "survivor",
                                server.identity().id().orElseThrow(),
                                4000,
                                LoopbackHubNetwork.id(second))));
        // and the name is still this node's: nobody else gets it
        Traverse rival = net.node(second);
        assertThatThrownBy(() -> rival.serverSocketFactory().createServerSocket("survivor", 4000))
                .isInstanceOf(BindException.class)
                .hasMessageContaining("survivor");
    }

    @Test
    void failsOverToAHubItOnlyLearnedFromTheNetwork() throws Exception {
        Hub configured = net.hub("hub-configured");
        Hub learned = net.hub("hub-learned", configured);
        Traverse node = net.node(configured); // traverse.hubs names only the first
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> "hub-configured".equals(node.hubLinkStatus().hubName()));
        // every hub list the node receives (at link-up, every 30 s, or asked for) updates its failover candidates
        await().atMost(Duration.ofSeconds(10))
                .until(() -> node.hubDirectory().hubs().get(5, TimeUnit.SECONDS).size() == 2);
        configured.close();
        await().atMost(Duration.ofSeconds(15))
                .until(() -> LoopbackHubNetwork.id(learned)
                        .equals(node.hubLinkStatus().hubId()));
        assertThat(node.hubLinkStatus().hubName())
                .isIn(
                        "hub-learned",
                        LoopbackHubNetwork.address(learned).getHostString() + ":"
                                + LoopbackHubNetwork.address(learned).getPort());
    }

    @Test
    void namesVanishWhenTheirNodeLeaves() throws Exception {
        Hub a = net.hub("hub-a");
        Hub b = net.hub("hub-b", a);
        Traverse leaving = Traverse.start(LoopbackHubNetwork.config(a).build());
        Traverse observer = net.node(b);
        try {
            leaving.serverSocketFactory().createServerSocket("short-lived", 80);
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> observer.hubDirectory()
                            .resolveName("short-lived")
                            .get(5, TimeUnit.SECONDS)
                            .isPresent());
        } finally {
            leaving.close();
        }
        await().atMost(Duration.ofSeconds(15))
                .until(() -> observer.hubDirectory()
                        .resolveName("short-lived")
                        .get(5, TimeUnit.SECONDS)
                        .isEmpty());
        assertThatThrownBy(() -> observer.socketFactory().createSocket("short-lived", 80))
                .isInstanceOf(java.net.UnknownHostException.class)
                .hasMessageContaining("no live node holds this name");
    }

    @Test
    void sideChannelRequestAndAnswerAcrossHubs() throws Exception {
        Hub a = net.hub("hub-a");
        Hub b = net.hub("hub-b", a);
        Hub c = net.hub("hub-c", b);
        Traverse asker = net.node(a);
        Traverse answerer = net.node(c);
        NodeId target = answerer.identity().id().orElseThrow();
        answerer.sideChannel()
                .register(
                        "upper",
                        (from, payload) -> new String(payload, StandardCharsets.UTF_8)
                                .toUpperCase(java.util.Locale.ROOT)
                                .getBytes(StandardCharsets.UTF_8));
        assertThat(asker.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(answerer.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        await().atMost(Duration.ofSeconds(15))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(asker.sideChannel()
                                .request(target, "upper", "across three hubs".getBytes(StandardCharsets.UTF_8))
                                .get(5, TimeUnit.SECONDS))
                        .asString(StandardCharsets.UTF_8)
                        .isEqualTo("ACROSS THREE HUBS"));
        assertThatThrownBy(() -> asker.sideChannel()
                        .request(target, "absent", new byte[0])
                        .get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(SideChannelException.class)
                .hasMessageContaining("absent");
        assertThatThrownBy(() -> asker.sideChannel()
                        .request(NodeId.random(), "upper", new byte[0])
                        .get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(SideChannelException.class)
                .matches(
                        e -> ((SideChannelException) e).failure() == SideChannelException.Failure.UNKNOWN_NODE,
                        "UNKNOWN_NODE");
    }

    @Test
    void aHandlerMayAnswerLaterWithoutHoldingAHandlerThread() throws Exception {
        Hub hub = net.hub("hub-later");
        Traverse asker = net.node(hub);
        Traverse answerer = net.node(hub);
        NodeId target = answerer.identity().id().orElseThrow();
        // Keyed by the request's byte: handler threads take the requests in no particular order.
        java.util.Map<Integer, java.util.concurrent.CompletableFuture<byte[]>> held =
                new java.util.concurrent.ConcurrentHashMap<>();
        answerer.sideChannel().register("later", new io.traverse.SideChannelHandler() {
            @Override
            public byte[] answer(NodeId sender, byte[] request) {
                throw new UnsupportedOperationException("answers later");
            }

            @Override
            public java.util.concurrent.CompletableFuture<byte[]> answerLater(NodeId sender, byte[] request) {
                java.util.concurrent.CompletableFuture<byte[]> answer = new java.util.concurrent.CompletableFuture<>();
                held.put((int) request[0], answer);
                return answer;
            }
        });
        answerer.sideChannel().register("now", (from, payload) -> payload);
        assertThat(asker.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(answerer.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        await().atMost(Duration.ofSeconds(15))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(asker.sideChannel()
                                .request(target, "now", new byte[] {1})
                                .get(5, TimeUnit.SECONDS))
                        .containsExactly(1));
        // More requests held open than there are handler threads: "now" is still answered at once.
        java.util.List<java.util.concurrent.CompletableFuture<byte[]>> waiting = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) {
            waiting.add(asker.sideChannel().request(target, "later", new byte[] {(byte) i}, Duration.ofSeconds(20)));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 10);
        assertThat(asker.sideChannel().request(target, "now", new byte[] {2}).get(5, TimeUnit.SECONDS))
                .containsExactly(2);
        held.get(0).complete("done".getBytes(StandardCharsets.UTF_8));
        held.get(1).completeExceptionally(new IllegalStateException("gave up"));
        assertThat(waiting.get(0).get(10, TimeUnit.SECONDS))
                .asString(StandardCharsets.UTF_8)
                .isEqualTo("done");
        assertThatThrownBy(() -> waiting.get(1).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(SideChannelException.class)
                .hasMessageContaining("gave up")
                .matches(
                        e -> ((SideChannelException) e).failure() == SideChannelException.Failure.HANDLER_FAILED,
                        "HANDLER_FAILED");
        held.values().forEach(f -> f.complete(new byte[0]));
    }
}
