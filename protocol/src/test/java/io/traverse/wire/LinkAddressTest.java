package io.traverse.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class LinkAddressTest {
    @Test
    void parsesHostPortIpv4AndBracketedIpv6WithoutResolving() {
        assertThat(LinkAddress.parse("hub.example.org:17001"))
                .isEqualTo(InetSocketAddress.createUnresolved("hub.example.org", 17001));
        assertThat(LinkAddress.parse("[fd00::1]:17000").getHostString()).isEqualTo("fd00::1");
        assertThat(LinkAddress.parse("10.0.0.1", LinkAddress.DEFAULT_PORT).getPort())
                .isEqualTo(17000);
        assertThat(LinkAddress.parse("[fd00::1]", LinkAddress.DEFAULT_PORT).getPort())
                .isEqualTo(17000);
        assertThat(LinkAddress.parse("10.0.0.1:9").isUnresolved()).isTrue();
    }

    @Test
    void refusesWhatIsNotHostPort() {
        for (String bad : new String[] {
            "",
            "host",
            ":17000",
            "host:",
            "host:0",
            "host:65536",
            "fd00::1:17000",
            "[fd00::1:1",
            "host:12x",
            "a b:1",
            "host:0000017000"
        }) {
            assertThatThrownBy(() -> LinkAddress.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void formatsRoundTrip() {
        for (String text : new String[] {"10.1.2.3:1", "[fd00::1]:17000", "hub:65535"}) {
            assertThat(LinkAddress.format(LinkAddress.parse(text))).isEqualTo(text);
        }
    }
}
