package io.traverse.reverse;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeIdentity;
import java.net.InetSocketAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class DialBackLongShotTest {
    private static NodeIdentity withAddresses(String... ips) {
        NodeIdentity.Builder b = NodeIdentity.builder();
        for (String ip : ips) {
            b.address(new InetSocketAddress(ip, 5000));
        }
        return b.build();
    }

    @Test
    void aNodeWithOnlyPrivateAddressesAskingANodeOnAnotherPrivateNetworkIsALongShot() {
        NodeIdentity lab = withAddresses("10.20.0.3", "127.0.0.1", "::1", "169.254.7.1");
        assertThat(ReverseModule.dialBackIsLongShot(lab, true)).isTrue();
    }

    @Test
    void aTargetOnOneOfOurNetworksOrAPublicOneCanDialBack() {
        NodeIdentity lab = withAddresses("10.20.0.3", "127.0.0.1");
        assertThat(ReverseModule.dialBackIsLongShot(lab, false)).isFalse();
    }

    @Test
    void anAddressThatMayBeReachableFromElsewhereMakesItWorthTheWait() {
        assertThat(ReverseModule.dialBackIsLongShot(withAddresses("10.20.0.3", "198.51.100.7"), true))
                .as("public")
                .isFalse();
        assertThat(ReverseModule.dialBackIsLongShot(withAddresses("100.64.1.2"), true))
                .as("a carrier's shared range")
                .isFalse();
        assertThat(ReverseModule.dialBackIsLongShot(withAddresses("fd00::5"), true))
                .as("unique-local")
                .isFalse();
        NodeIdentity forwarded =
                withAddresses("192.168.1.2").withExternals(List.of(new InetSocketAddress("203.0.113.9", 5000)));
        assertThat(ReverseModule.dialBackIsLongShot(forwarded, true))
                .as("a port mapping it named")
                .isFalse();
    }
}
