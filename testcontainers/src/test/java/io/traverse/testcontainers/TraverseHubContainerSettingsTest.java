package io.traverse.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * What TraverseHubContainer hands the hub, checked without an engine: the image of this version,
 * the token in the environment (never on the command line), ports and options as
 * {@code traverse hub} takes them.
 */
class TraverseHubContainerSettingsTest {

    @Test
    void theDefaultImageIsTheHubOfThisVersion() {
        assertThat(TraverseHubContainer.DEFAULT_IMAGE.asCanonicalNameString())
                .isEqualTo("traverse/hub:" + System.getProperty("traverse.version", "0.1.0-SNAPSHOT"));
    }

    @Test
    void eachContainerHasItsOwnRandomTokenInTheEnvironmentOnly() {
        TraverseHubContainer one = new TraverseHubContainer();
        TraverseHubContainer two = new TraverseHubContainer();
        assertThat(one.getToken()).matches("[0-9a-f]{32}").isNotEqualTo(two.getToken());
        one.configure();
        assertThat(one.getEnvMap()).containsEntry("TRAVERSE_TOKEN", one.getToken());
        assertThat(String.join(" ", one.getCommandParts()))
                .doesNotContain(one.getToken())
                .isEqualTo("hub --port 17000 --http-port 17080");
        assertThat(one.getExposedPorts())
                .containsExactly(TraverseHubContainer.LINK_PORT, TraverseHubContainer.HTTP_PORT);
    }

    @Test
    void tokenNameAndAdvertisedAddressesReachTheHub() {
        TraverseHubContainer hub = new TraverseHubContainer()
                .withToken("t0ken")
                .withHubName("hub-a")
                .withAdvertisedAddresses("198.51.100.7:17000", "hub-a.example:17000");
        hub.configure();
        assertThat(hub.getEnvMap()).containsEntry("TRAVERSE_TOKEN", "t0ken");
        assertThat(hub.getCommandParts())
                .containsExactly(
                        "hub",
                        "--port",
                        "17000",
                        "--http-port",
                        "17080",
                        "--advertise",
                        "198.51.100.7:17000,hub-a.example:17000",
                        "--name",
                        "hub-a");
    }

    @Test
    void anEmptyTokenIsRefusedWithTheReason() {
        assertThatThrownBy(() -> new TraverseHubContainer().withToken(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lets anyone join");
    }
}
