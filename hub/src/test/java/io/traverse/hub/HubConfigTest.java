package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class HubConfigTest {
    @Test
    void invalidSettingsAreRefusedWithTheirName() {
        assertThatThrownBy(() -> HubConfig.builder().port(-1).build()).hasMessageContaining("port -1");
        assertThatThrownBy(() -> HubConfig.builder().name("a b").build()).hasMessageContaining("hub name 'a b'");
        assertThatThrownBy(() -> HubConfig.builder().peer("x:0").build()).hasMessageContaining("peer");
        assertThatThrownBy(() -> HubConfig.builder().advertisedAddresses(List.of("nohost")).build()).hasMessageContaining("host:port");
        assertThatThrownBy(() -> HubConfig.builder().keepaliveInterval(Duration.ofMillis(1)).build()).hasMessageContaining("keepalive");
        assertThatThrownBy(() -> HubConfig.builder().gossipRefreshInterval(Duration.ofSeconds(20)).build())
                .hasMessageContaining("at least twice the gossip refresh");
        assertThatThrownBy(() -> HubConfig.builder().maxPendingRequestsPerNode(0).build()).hasMessageContaining("pending");
        assertThatThrownBy(() -> HubConfig.builder().redial(Duration.ofSeconds(2), Duration.ofSeconds(1)).build())
                .hasMessageContaining("redial");
    }

    @Test
    void theHubIdFollowsTheName() {
        assertThat(Hub.idForName("site-a:17000")).isEqualTo(Hub.idForName("site-a:17000")).isNotEqualTo(Hub.idForName("site-b:17000"));
        assertThat(Hub.idForName("x").toString()).hasSize(26);
    }

    @Test
    void peersWithoutAPortUseTheDefault() {
        HubConfig config = HubConfig.builder().peer("hub.example.org").peer("[fd00::1]").build();
        assertThat(config.peers()).containsExactly("hub.example.org", "[fd00::1]");
    }
}
