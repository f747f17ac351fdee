package io.traverse.identity;

import static io.traverse.identity.RandomIdentities.ip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AddressClassTest {
    @Test
    void classifiesEveryRangeAtItsEdges() {
        Map<String, AddressClass> expected = new LinkedHashMap<>();
        expected.put("127.0.0.1", AddressClass.LOOPBACK);
        expected.put("127.255.255.254", AddressClass.LOOPBACK);
        expected.put("::1", AddressClass.LOOPBACK);
        expected.put("169.254.0.1", AddressClass.LINK_LOCAL);
        expected.put("169.254.255.254", AddressClass.LINK_LOCAL);
        expected.put("169.253.255.255", AddressClass.PUBLIC);
        expected.put("169.255.0.0", AddressClass.PUBLIC);
        expected.put("fe80::1", AddressClass.LINK_LOCAL);
        expected.put("febf:ffff::1", AddressClass.LINK_LOCAL);
        // RFC 1918, first and last address of each block and the neighbours outside it
        expected.put("9.255.255.255", AddressClass.PUBLIC);
        expected.put("10.0.0.0", AddressClass.PRIVATE);
        expected.put("10.255.255.255", AddressClass.PRIVATE);
        expected.put("11.0.0.0", AddressClass.PUBLIC);
        expected.put("172.15.255.255", AddressClass.PUBLIC);
        expected.put("172.16.0.0", AddressClass.PRIVATE);
        expected.put("172.31.255.255", AddressClass.PRIVATE);
        expected.put("172.32.0.0", AddressClass.PUBLIC);
        expected.put("192.167.255.255", AddressClass.PUBLIC);
        expected.put("192.168.0.0", AddressClass.PRIVATE);
        expected.put("192.168.255.255", AddressClass.PRIVATE);
        expected.put("192.169.0.0", AddressClass.PUBLIC);
        // RFC 6598
        expected.put("100.63.255.255", AddressClass.PUBLIC);
        expected.put("100.64.0.0", AddressClass.SHARED);
        expected.put("100.127.255.255", AddressClass.SHARED);
        expected.put("100.128.0.0", AddressClass.PUBLIC);
        // RFC 4193
        expected.put("fbff:ffff::1", AddressClass.PUBLIC);
        expected.put("fc00::", AddressClass.UNIQUE_LOCAL);
        expected.put("fd00::1", AddressClass.UNIQUE_LOCAL);
        expected.put("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", AddressClass.UNIQUE_LOCAL);
        expected.put("fe00::1", AddressClass.PUBLIC);
        // public, including the benchmarking range the testbed uses
        expected.put("198.18.0.1", AddressClass.PUBLIC);
        expected.put("198.19.255.254", AddressClass.PUBLIC);
        expected.put("203.0.113.7", AddressClass.PUBLIC);
        expected.put("8.8.8.8", AddressClass.PUBLIC);
        expected.put("2001:db8::1", AddressClass.PUBLIC);
        expected.put("2a00:1450::1", AddressClass.PUBLIC);

        expected.forEach((literal, cls) ->
                assertThat(AddressClass.of(ip(literal))).as(literal).isEqualTo(cls));
    }

    @Test
    void wildcardAndMulticastAreNotNodeAddresses() {
        for (String literal : List.of("0.0.0.0", "::", "224.0.0.1", "239.255.255.255", "ff02::1", "ff0e::1")) {
            assertThatThrownBy(() -> AddressClass.of(ip(literal)))
                    .as(literal)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not a unicast address");
        }
    }

    @Test
    void siteScopedClasses() {
        assertThat(AddressClass.PRIVATE.isSiteScoped()).isTrue();
        assertThat(AddressClass.SHARED.isSiteScoped()).isTrue();
        assertThat(AddressClass.UNIQUE_LOCAL.isSiteScoped()).isTrue();
        assertThat(AddressClass.PUBLIC.isSiteScoped()).isFalse();
        assertThat(AddressClass.LOOPBACK.isSiteScoped()).isFalse();
        assertThat(AddressClass.LINK_LOCAL.isSiteScoped()).isFalse();
    }
}
