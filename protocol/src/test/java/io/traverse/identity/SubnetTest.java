package io.traverse.identity;

import static io.traverse.identity.RandomIdentities.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SubnetTest {
    @Test
    void containsIsBoundedByThePrefix() {
        Subnet ten = Subnet.parse("10.0.0.0/8");
        assertThat(ten.contains(ip("10.0.0.0"))).isTrue();
        assertThat(ten.contains(ip("10.255.255.255"))).isTrue();
        assertThat(ten.contains(ip("9.255.255.255"))).isFalse();
        assertThat(ten.contains(ip("11.0.0.0"))).isFalse();

        Subnet twelve = Subnet.parse("172.16.0.0/12"); // not on a byte boundary
        assertThat(twelve.contains(ip("172.16.0.0"))).isTrue();
        assertThat(twelve.contains(ip("172.31.255.255"))).isTrue();
        assertThat(twelve.contains(ip("172.15.255.255"))).isFalse();
        assertThat(twelve.contains(ip("172.32.0.0"))).isFalse();

        Subnet odd = Subnet.parse("192.168.1.64/27");
        assertThat(odd.contains(ip("192.168.1.64"))).isTrue();
        assertThat(odd.contains(ip("192.168.1.95"))).isTrue();
        assertThat(odd.contains(ip("192.168.1.63"))).isFalse();
        assertThat(odd.contains(ip("192.168.1.96"))).isFalse();

        Subnet single = Subnet.parse("198.18.0.1");
        assertThat(single.prefixLength()).isEqualTo(32);
        assertThat(single.contains(ip("198.18.0.1"))).isTrue();
        assertThat(single.contains(ip("198.18.0.2"))).isFalse();

        Subnet all4 = Subnet.parse("0.0.0.0/0");
        assertThat(all4.contains(ip("255.255.255.255"))).isTrue();
        assertThat(all4.contains(ip("::1")))
                .as("an IPv4 network never contains an IPv6 address")
                .isFalse();
    }

    @Test
    void ipv6Networks() {
        Subnet ula = Subnet.parse("fc00::/7");
        assertThat(ula.isIpv4()).isFalse();
        assertThat(ula.contains(ip("fc00::1"))).isTrue();
        assertThat(ula.contains(ip("fdff:ffff::1"))).isTrue();
        assertThat(ula.contains(ip("fe00::1"))).isFalse();
        assertThat(ula.contains(ip("fbff::1"))).isFalse();
        assertThat(ula.contains(ip("10.0.0.1"))).isFalse();

        Subnet doc = Subnet.parse("[2001:db8::]/32");
        assertThat(doc.contains(ip("2001:db8:ffff::1"))).isTrue();
        assertThat(doc.contains(ip("2001:db9::1"))).isFalse();
        assertThat(Subnet.parse("::1").prefixLength()).isEqualTo(128);
    }

    @Test
    void networkIsNormalisedAndComparable() {
        assertThat(Subnet.parse("10.1.2.3/8"))
                .isEqualTo(Subnet.parse("10.0.0.0/8"))
                .hasSameHashCodeAs(Subnet.parse("10.9.9.9/8"));
        assertThat(Subnet.parse("10.1.2.3/8")).hasToString("10.0.0.0/8");
        assertThat(Subnet.parse("fd12:3456::1/16")).hasToString("fd12::/16");
        assertThat(Subnet.parse("10.0.0.0/8")).isNotEqualTo(Subnet.parse("10.0.0.0/9"));
        assertThat(Subnet.of(ip("192.168.7.3"), 24)).isEqualTo(Subnet.parse("192.168.7.0/24"));
        assertThat(Subnet.parse(" 10.0.0.0/8 ").toString()).isEqualTo("10.0.0.0/8");
    }

    @Test
    void parseErrorsNameThePart() {
        assertThatThrownBy(() -> Subnet.parse("10.0.0.0/33"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("33")
                .hasMessageContaining("0-32");
        assertThatThrownBy(() -> Subnet.parse("fd00::/129"))
                .hasMessageContaining("129")
                .hasMessageContaining("0-128");
        assertThatThrownBy(() -> Subnet.parse("10.0.0.0/x")).hasMessageContaining("'x'");
        assertThatThrownBy(() -> Subnet.parse("10.0.0.0/")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Subnet.parse("10.0.0.0/-1")).isInstanceOf(IllegalArgumentException.class);
        for (String bad : List.of("host.example/8", "localhost", "10.0.0/8", "")) {
            assertThatThrownBy(() -> Subnet.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> Subnet.of(ip("10.0.0.1"), 33)).isInstanceOf(IllegalArgumentException.class);
    }
}
