package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.spi.AdvertisedExternal;
import io.traverse.spi.ModuleContext;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hook port mapping uses: an external address a module advertises joins the node's identity
 * and reaches the hub in a NODE_UPDATE; withdrawn, it leaves both again. A node that advertises
 * before its link is up sends the address in its HELLO or right after.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AdvertisedExternalTest {
    private static final String TOKEN = "s3cret";
    private static final InetSocketAddress MAPPED = new InetSocketAddress("198.51.100.7", 40000);
    private static final String MAPPED_TEXT = ".x198-51-100-7p40000";

    @Test
    void anAdvertisedAddressJoinsTheIdentityAndTheHubAndLeavesBoth() throws Exception {
        try (FakeHub hub = new FakeHub(TOKEN);
                Traverse node = Traverse.start(config(hub))) {
            assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
            ModuleContext context = AdvertisingModuleProvider.CONTEXTS.get(
                    node.identity().id().orElseThrow().toString());
            assertThat(context.listeningPort()).isEqualTo(node.listeningPort());

            AdvertisedExternal advertised = context.advertiseExternal(MAPPED);
            assertThat(node.identity().externals()).containsExactly(MAPPED);
            assertThat(node.identity().hubs()).first().isEqualTo(hub.address());
            assertThat(context.localIdentity()).isEqualTo(node.identity());
            Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(
                                    hub.identities.get(node.identity().id().orElseThrow()))
                            .isEqualTo(node.identity().toText()));

            advertised.withdraw();
            advertised.withdraw(); // a second withdrawal does nothing
            assertThat(node.identity().externals()).isEmpty();
            Awaitility.await()
                    .atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(
                                    hub.identities.get(node.identity().id().orElseThrow()))
                            .doesNotContain(MAPPED_TEXT)
                            .isEqualTo(node.identity().toText()));
        }
    }

    @Test
    void anAddressAdvertisedBeforeTheLinkIsUpReachesTheHub() throws Exception {
        FakeHub gone = new FakeHub(TOKEN);
        InetSocketAddress hubAddress = gone.address();
        gone.close(); // nothing listens there yet: the node keeps retrying
        try (Traverse node = Traverse.start(TraverseConfig.builder()
                .bind("127.0.0.1")
                .token(TOKEN)
                .hubs(List.of(hubAddress))
                .discovery(false)
                .modules(AdvertisingModuleProvider.NAME)
                .build())) {
            ModuleContext context = AdvertisingModuleProvider.CONTEXTS.get(
                    node.identity().id().orElseThrow().toString());
            context.advertiseExternal(MAPPED);
            assertThat(node.identity().externals()).containsExactly(MAPPED);
            assertThat(node.hubLinkStatus().isConnected()).isFalse();
            try (FakeHub hub = new FakeHub(TOKEN, false, 2000, hubAddress.getPort())) {
                assertThat(node.awaitHubLink(Duration.ofSeconds(15))).isTrue();
                Awaitility.await()
                        .atMost(Duration.ofSeconds(5))
                        .untilAsserted(() -> assertThat(
                                        hub.identities.get(node.identity().id().orElseThrow()))
                                .contains(MAPPED_TEXT)
                                .isEqualTo(node.identity().toText()));
            }
        }
    }

    @Test
    void anAddressAdvertisedAfterTheHelloWasSentReachesTheHubOnceTheLinkIsUp() throws Exception {
        // The HELLO already left without the address: the link must send it in a NODE_UPDATE when it comes up.
        try (FakeHub hub = new FakeHub(TOKEN)) {
            hub.answerHello = new java.util.concurrent.CountDownLatch(1);
            try (Traverse node = Traverse.start(config(hub))) {
                assertThat(hub.helloSeen.await(10, TimeUnit.SECONDS)).isTrue();
                ModuleContext context = AdvertisingModuleProvider.CONTEXTS.get(
                        node.identity().id().orElseThrow().toString());
                context.advertiseExternal(MAPPED);
                hub.answerHello.countDown();
                assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
                Awaitility.await()
                        .atMost(Duration.ofSeconds(5))
                        .untilAsserted(() -> assertThat(
                                        hub.identities.get(node.identity().id().orElseThrow()))
                                .contains(MAPPED_TEXT)
                                .isEqualTo(node.identity().toText()));
            }
        }
    }

    @Test
    void modulesAlreadyCreatedAreClosedWhenALaterOneFailsToStart() {
        // A module that advertises (port mapping) holds a thread, a shutdown hook and a router mapping:
        // a node that fails to start must close it, or all three outlive the failed start.
        java.util.Set<String> before = java.util.Set.copyOf(AdvertisingModuleProvider.CONTEXTS.keySet());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Traverse.start(TraverseConfig.builder()
                        .bind("127.0.0.1")
                        .discovery(false)
                        .modules(AdvertisingModuleProvider.NAME, FailingModuleProvider.NAME)
                        .build()))
                .hasMessageContaining("a module that cannot start");
        java.util.Set<String> created = new java.util.HashSet<>(AdvertisingModuleProvider.CONTEXTS.keySet());
        created.removeAll(before);
        assertThat(created).hasSize(1);
        assertThat(AdvertisingModuleProvider.CLOSED).containsAll(created);
    }

    private static TraverseConfig config(FakeHub hub) {
        return TraverseConfig.builder()
                .bind("127.0.0.1")
                .token(TOKEN)
                .hubs(List.of(hub.address()))
                .discovery(false)
                .hubTimeout(Duration.ofSeconds(5))
                .modules(AdvertisingModuleProvider.NAME)
                .build();
    }
}
