package io.traverse.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IpLiteralsTest {
    @Test
    void parsesIpv4AndIpv6Literals() throws Exception {
        assertThat(IpLiterals.parse("198.18.0.1"))
                .isInstanceOf(Inet4Address.class)
                .isEqualTo(InetAddress.getByAddress(new byte[] {(byte) 198, 18, 0, 1}));
        assertThat(IpLiterals.parse(" 10.0.0.255 ").getHostAddress()).isEqualTo("10.0.0.255");
        assertThat(IpLiterals.parse("::1")).isInstanceOf(Inet6Address.class).isEqualTo(InetAddress.getByName("::1"));
        assertThat(IpLiterals.parse("[::1]")).isEqualTo(InetAddress.getByName("::1"));
        assertThat(IpLiterals.parse("::")).isEqualTo(InetAddress.getByName("::"));
        assertThat(IpLiterals.parse("FD00::A:1")).isEqualTo(InetAddress.getByName("fd00::a:1"));
        assertThat(IpLiterals.parse("1:2:3:4:5:6:7:8")).isEqualTo(InetAddress.getByName("1:2:3:4:5:6:7:8"));
        assertThat(IpLiterals.parse("::1.2.3.4")).isEqualTo(InetAddress.getByName("::1.2.3.4"));
        assertThat(IpLiterals.parse("64:ff9b::198.18.0.1")).isEqualTo(InetAddress.getByName("64:ff9b::c612:1"));
        assertThat(IpLiterals.parse("1:2:3:4:5:6:1.2.3.4")).isEqualTo(InetAddress.getByName("1:2:3:4:5:6:102:304"));
        // An IPv4-mapped literal is the IPv4 address, as the JDK has it.
        assertThat(IpLiterals.parse("::ffff:10.0.0.1")).isEqualTo(IpLiterals.parse("10.0.0.1"));
    }

    @Test
    void rejectsWhatIsNotALiteralWithoutAskingDns() {
        List<String> bad = List.of(
                "",
                " ",
                "localhost",
                "example.org",
                "1.2.3",
                "1.2.3.4.5",
                "256.0.0.1",
                "1.2.3.-4",
                "1..2.3",
                "1.2.3.4 5",
                "+1.2.3.4",
                "0x1.2.3.4",
                "1.2.3.1000",
                "1.2.3.4%eth0",
                ":::",
                "1::2::3",
                "1:2:3:4:5:6:7:8:9",
                "1:2:3:4:5:6:7",
                "1:2:3:4:5:6:7::8",
                "12345::",
                "g::1",
                ":1:2:3:4:5:6:7",
                "1:2:3:4:5:6:7:",
                "fe80::1%eth0",
                "fe80::1%1",
                "[::1",
                "::1]",
                "::1.2.3",
                "::1.2.3.4:5",
                "1.2.3.4::",
                "1:1.2.3.4::1",
                "1:2:3:4:5:6:7:1.2.3.4",
                "::\uff11",
                "\uff26\uff24\uff10\uff10::1",
                "::\u0661",
                "\u0661.2.3.4");
        for (String text : bad) {
            assertThat(IpLiterals.isLiteral(text)).as("'%s'", text).isFalse();
            assertThatThrownBy(() -> IpLiterals.parse(text))
                    .as("'%s'", text)
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void errorMessagesSayWhatIsWrong() {
        assertThatThrownBy(() -> IpLiterals.parse("10.0.300.1"))
                .hasMessageContaining("300")
                .hasMessageContaining("0-255");
        assertThatThrownBy(() -> IpLiterals.parse("1::2::3")).hasMessageContaining("more than one '::'");
        assertThatThrownBy(() -> IpLiterals.parse("fe80::1%eth0")).hasMessageContaining("zone");
        assertThatThrownBy(() -> IpLiterals.parse("1:2:3")).hasMessageContaining("8 IPv6 groups");
        assertThatThrownBy(() -> IpLiterals.parse("12345::1")).hasMessageContaining("12345");
    }

    @Test
    void formatsIpv6AsRfc5952() {
        String[][] cases = {
            {"0:0:0:0:0:0:0:1", "::1"},
            {"fd00:0:0:0:0:0:0:0", "fd00::"},
            {"2001:db8:0:0:0:0:a:1", "2001:db8::a:1"},
            {"2001:0db8:0000:0000:0001:0000:0000:0001", "2001:db8::1:0:0:1"}, // first of two equal runs
            {"2001:db8:0:0:1:0:0:0", "2001:db8:0:0:1::"}, // the longer run wins
            {"2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"}, // a single zero group stays
            {"0:0:1:1:1:1:0:0", "::1:1:1:1:0:0"},
            {"2001:DB8:AAAA:BBBB:CCCC:DDDD:EEEE:FFFF", "2001:db8:aaaa:bbbb:cccc:dddd:eeee:ffff"},
            {"0:0:0:0:0:0:0:0", "::"},
            {"1:0:0:0:0:0:0:0", "1::"},
            {"0:1:0:1:0:1:0:1", "0:1:0:1:0:1:0:1"},
        };
        for (String[] c : cases) {
            assertThat(IpLiterals.format(IpLiterals.parse(c[0]))).as(c[0]).isEqualTo(c[1]);
        }
        assertThat(IpLiterals.format(IpLiterals.parse("198.18.0.1"))).isEqualTo("198.18.0.1");
        assertThat(IpLiterals.formatEndpoint(IpLiterals.parse("fd00::1"), 80)).isEqualTo("[fd00::1]:80");
        assertThat(IpLiterals.formatEndpoint(IpLiterals.parse("10.0.0.1"), 80)).isEqualTo("10.0.0.1:80");
    }

    @Test
    void randomAddressesFormatCanonicallyAndParseBack() throws Exception {
        for (int n = 0; n < 5000; n++) {
            Random r = RandomIdentities.forCase(n);
            InetAddress address = RandomIdentities.ip(r);
            String text = IpLiterals.format(address);
            String where = RandomIdentities.describe(n) + ", " + text;
            assertThat(IpLiterals.parse(text)).as(where).isEqualTo(address);
            assertThat(IpLiterals.parse("[" + text + "]")).as(where).isEqualTo(address);
            assertThat(IpLiterals.isLiteral(text)).as(where).isTrue();
            // The JDK's own literal parser (no DNS for a literal) agrees.
            assertThat(InetAddress.getByName(text)).as(where).isEqualTo(address);
            if (address instanceof Inet6Address v6) {
                assertThat(text).as(where).isEqualTo(rfc5952(v6));
            }
        }
    }

    /** RFC 5952 written out independently: lower case, no leading zeros, longest run of two or more zero groups, first on a tie. */
    private static String rfc5952(Inet6Address address) {
        byte[] b = address.getAddress();
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 0;
        for (int start = 0; start < 8; start++) {
            int length = 0;
            while (start + length < 8 && g[start + length] == 0) {
                length++;
            }
            if (length >= 2 && length > bestLength) {
                bestStart = start;
                bestLength = length;
            }
        }
        StringBuilder left = new StringBuilder();
        StringBuilder right = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (bestStart >= 0 && i >= bestStart && i < bestStart + bestLength) {
                continue;
            }
            StringBuilder side = bestStart >= 0 && i >= bestStart + bestLength ? right : left;
            if (side.length() > 0) {
                side.append(':');
            }
            side.append(Integer.toHexString(g[i]));
        }
        return bestStart < 0 ? left.toString() : left + "::" + right;
    }
}
