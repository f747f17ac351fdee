package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HubConfigTest {
    @Test
    void invalidSettingsAreRefusedWithTheirName() {
        assertThatThrownBy(() -> HubConfig.builder().port(-1).build()).hasMessageContaining("port -1");
        assertThatThrownBy(() -> HubConfig.builder().name("a b").build()).hasMessageContaining("hub name 'a b'");
        assertThatThrownBy(() -> HubConfig.builder().peer("x:0").build()).hasMessageContaining("peer");
        assertThatThrownBy(() -> HubConfig.builder()
                        .advertisedAddresses(List.of("nohost"))
                        .build())
                .hasMessageContaining("host:port");
        assertThatThrownBy(() -> HubConfig.builder()
                        .keepaliveInterval(Duration.ofMillis(1))
                        .build())
                .hasMessageContaining("keepalive");
        assertThatThrownBy(() -> HubConfig.builder()
                        .gossipRefreshInterval(Duration.ofSeconds(20))
                        .build())
                .hasMessageContaining("at least twice the gossip refresh");
        assertThatThrownBy(
                        () -> HubConfig.builder().maxPendingRequestsPerNode(0).build())
                .hasMessageContaining("pending");
        assertThatThrownBy(() -> HubConfig.builder().maxRelayedPerNode(0).build())
                .hasMessageContaining("traverse.hub.max.relayed.per.node 0");
        assertThatThrownBy(() -> HubConfig.builder().maxSetupsPerNode(-1).build())
                .hasMessageContaining("traverse.hub.max.setups.per.node");
        assertThatThrownBy(() -> HubConfig.builder().maxRelayed(0).build())
                .hasMessageContaining("traverse.hub.max.relayed 0");
        assertThatThrownBy(() -> HubConfig.builder().linkRate(0).build())
                .hasMessageContaining("traverse.hub.link.rate 0");
        assertThatThrownBy(() -> HubConfig.builder().linkBurst(0).build())
                .hasMessageContaining("traverse.hub.link.burst 0");
        assertThatThrownBy(() -> HubConfig.builder().maxNamesPerNode(-1).build())
                .hasMessageContaining("traverse.hub.max.names.per.node -1");
        assertThatThrownBy(() -> HubConfig.builder().lookupRatePerNode(0).build())
                .hasMessageContaining("traverse.hub.lookup.rate.per.node 0");
        assertThatThrownBy(() -> HubConfig.builder().lookupBurstPerNode(0).build())
                .hasMessageContaining("traverse.hub.lookup.burst.per.node 0");
        assertThatThrownBy(() -> HubConfig.builder().maxHandshakes(0).build())
                .hasMessageContaining("traverse.hub.max.handshakes 0");
        assertThatThrownBy(() -> HubConfig.builder().maxHandshakesPerAddress(0).build())
                .hasMessageContaining("traverse.hub.max.handshakes.per.address 0");
        assertThatThrownBy(() -> HubConfig.builder().maxHttpRequests(0).build())
                .hasMessageContaining("traverse.hub.max.http.requests 0");
        assertThatThrownBy(() ->
                        HubConfig.builder().httpRequestTimeout(Duration.ZERO).build())
                .hasMessageContaining("traverse.hub.http.request.timeout");
        assertThatThrownBy(() -> HubConfig.builder()
                        .redial(Duration.ofSeconds(2), Duration.ofSeconds(1))
                        .build())
                .hasMessageContaining("redial");
    }

    @Test
    void theKeyComesFromTheKeyFileElseTheStateDirectoryByNameOrPort() {
        Path state = Path.of("/srv/traverse-state");
        assertThat(HubConfig.builder()
                        .name("site-a:17000")
                        .port(17000)
                        .stateDirectory(state)
                        .build()
                        .keySource())
                .hasToString("kept in /srv/traverse-state/hub-site-a_17000.key");
        assertThat(HubConfig.builder().port(17001).stateDirectory(state).build().keySource())
                .hasToString("kept in /srv/traverse-state/hub-17001.key");
        assertThat(HubConfig.builder()
                        .stateDirectory(state)
                        .keyFile(Path.of("/etc/hub.key"))
                        .build()
                        .keySource())
                .hasToString("kept in /etc/hub.key");
        assertThat(HubConfig.builder().port(0).stateDirectory(state).build().keySource())
                .hasToString("new at every start");
        assertThat(HubConfig.builder().ephemeralKey().build().keySource()).hasToString("new at every start");
        assertThatThrownBy(() -> HubConfig.builder()
                        .ephemeralKey()
                        .keyFile(Path.of("/etc/hub.key"))
                        .build())
                .hasMessageContaining("exclude each other");
        assertThatThrownBy(() -> HubConfig.builder().keyFile(Path.of("/tmp")).build())
                .hasMessageContaining("is a directory");
    }

    @Test
    void theDefaultStateDirectoryFollowsXdgThenTheHome() {
        assertThat(HubConfig.defaultStateDirectory(Map.of("XDG_STATE_HOME", "/var/state"), "/home/op"))
                .isEqualTo(Path.of("/var/state/traverse"));
        assertThat(HubConfig.defaultStateDirectory(Map.of("XDG_STATE_HOME", "not/absolute"), "/home/op"))
                .isEqualTo(Path.of("/home/op/.local/state/traverse"));
        assertThat(HubConfig.defaultStateDirectory(Map.of(), "/home/op"))
                .isEqualTo(Path.of("/home/op/.local/state/traverse"));
        // A user without a home (some containers give "?"): the working directory.
        assertThat(HubConfig.defaultStateDirectory(Map.of(), "?"))
                .isEqualTo(Path.of("traverse-state").toAbsolutePath());
    }

    @Test
    void peersWithoutAPortUseTheDefault() {
        HubConfig config =
                HubConfig.builder().peer("hub.example.org").peer("[fd00::1]").build();
        assertThat(config.peers()).containsExactly("hub.example.org", "[fd00::1]");
    }
}
