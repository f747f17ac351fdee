package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.discovery.DiscoveredHub;
import io.traverse.discovery.HubFinder;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A running hub answers discovery probes with its name and link address, and stops when closed. */
class HubDiscoveryTest {
    private static HubConfig.Builder hub(String name) {
        return HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .name(name)
                .token(TestHubs.TOKEN);
    }

    private static HubFinder finder(int port) {
        return HubFinder.builder()
                .port(port)
                .multicast(false)
                .broadcast(false)
                .localHost(true)
                .window(Duration.ofSeconds(3))
                .settle(Duration.ofMillis(50))
                .build();
    }

    @Test
    void aHubAnswersProbesWithItsLinkAddress() throws Exception {
        int port;
        try (Hub hub = Hub.start(hub("findable").discoveryPort(0).build())) {
            port = hub.discoveryAddress().orElseThrow().getPort();
            List<DiscoveredHub> found = finder(port).find();
            assertThat(found).hasSize(1);
            assertThat(found.get(0).name()).isEqualTo("findable");
            assertThat(found.get(0).linkAddresses())
                    .containsExactly(
                            new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort()));
        }
        assertThat(finder(port).find()).as("a closed hub answers no more").isEmpty();
    }

    @Test
    void discoveryIsOffUnlessAsked() throws Exception {
        try (Hub hub = Hub.start(hub("quiet").build())) {
            assertThat(hub.discoveryAddress()).isEmpty();
        }
    }
}
