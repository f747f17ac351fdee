package io.traverse.identity;

import static io.traverse.identity.RandomIdentities.endpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hostname-safe text form of a node identity: round trip, character set, and errors that name the part. */
class NodeIdentityTextTest {
    private static final int CASES = 3000;

    @Test
    void randomIdentitiesRoundTripThroughText() {
        for (int n = 0; n < CASES; n++) {
            Random r = RandomIdentities.forCase(n);
            NodeIdentity identity = RandomIdentities.identity(r);
            String text = identity.toText();
            String where = RandomIdentities.describe(n) + ", text " + text;

            NodeIdentity parsed = NodeIdentity.parse(text);
            assertThat(parsed).as(where).isEqualTo(identity);
            assertThat(parsed.hashCode()).as(where).isEqualTo(identity.hashCode());
            assertThat(parsed.toText()).as(where).isEqualTo(text);
            assertThat(parsed.isPartial()).as(where).isEqualTo(identity.id().isEmpty());
            // Upper case (as some tools write host names) parses to the same identity.
            assertThat(NodeIdentity.parse(text.toUpperCase())).as(where).isEqualTo(identity);
            assertThat(NodeIdentity.looksLikeIdentity(text)).as(where).isTrue();
        }
    }

    @Test
    void textIsMadeOfHostnameLabelsThatSurviveAUrl() {
        for (int n = 0; n < CASES; n++) {
            NodeIdentity identity = RandomIdentities.identity(RandomIdentities.forCase(n));
            String text = identity.toText();
            String where = RandomIdentities.describe(n) + ", text " + text;

            assertThat(text).as(where).matches("[a-z0-9.-]+");
            for (String label : text.split("\\.", -1)) {
                assertThat(label).as(where + ", label " + label).isNotEmpty().hasSizeLessThanOrEqualTo(63);
                assertThat(Character.isLetter(label.charAt(0)))
                        .as(where + ", label " + label)
                        .isTrue();
                assertThat(label).as(where + ", label " + label).doesNotEndWith("-");
            }
            // What a JDBC driver or HTTP client does with it: the URL host is our text, unchanged.
            URI uri = URI.create("postgresql://" + text + ":5432/db");
            assertThat(uri.getHost()).as(where).isEqualTo(text);
            assertThat(uri.getPort()).as(where).isEqualTo(5432);
            assertThat(InetSocketAddress.createUnresolved(text, 5432).getHostString())
                    .as(where)
                    .isEqualTo(text);
        }
    }

    @Test
    void compressedIpv6AddressesRoundTrip() {
        for (String literal : List.of(
                "::1",
                "fd00::",
                "2001:db8::a:1",
                "fd00::a:0:0:0",
                "1::",
                "1:0:0:2::3",
                "2001:db8:0:1:1:1:1:1",
                "fdff:ffff:ffff:ffff:ffff:ffff:ffff:fffe",
                "::ffff:0:1")) {
            NodeIdentity identity = NodeIdentity.builder()
                    .address(endpoint(literal, 5000))
                    .hub(endpoint(literal, 17000))
                    .build();
            String text = identity.toText();
            assertThat(NodeIdentity.parse(text)).as(literal + " as " + text).isEqualTo(identity);
            assertThat(text).as(literal).matches("[a-z0-9.-]+");
        }
        assertThat(NodeIdentity.builder().address(endpoint("::1", 5000)).build().toText())
                .isEqualTo("tv1.az1p5000");
        assertThat(NodeIdentity.builder().address(endpoint("fd00::", 1)).build().toText())
                .isEqualTo("tv1.afd00zp1");
        assertThat(NodeIdentity.builder()
                        .address(endpoint("2001:db8::a:1", 65535))
                        .build()
                        .toText())
                .isEqualTo("tv1.a2001-db8za-1p65535");
    }

    @Test
    void exampleFromTheDocumentationParses() {
        NodeIdentity id =
                NodeIdentity.parse("tv1-node7.a10-0-0-2p5000.afd00z1p5000.x203-0-113-7p6000.h198-18-0-1p17000");
        assertThat(id.id()).contains(NodeId.of("node7"));
        assertThat(id.addresses()).containsExactly(endpoint("10.0.0.2", 5000), endpoint("fd00::1", 5000));
        assertThat(id.externals()).containsExactly(endpoint("203.0.113.7", 6000));
        assertThat(id.hubs()).containsExactly(endpoint("198.18.0.1", 17000));
        assertThat(id.directAddresses())
                .containsExactly(endpoint("10.0.0.2", 5000), endpoint("fd00::1", 5000), endpoint("203.0.113.7", 6000));
    }

    @Test
    void idOnlyAndPartialIdentitiesRoundTrip() {
        NodeIdentity idOnly = NodeIdentity.builder().id(NodeId.of("lonely")).build();
        assertThat(idOnly.toText()).isEqualTo("tv1-lonely");
        assertThat(NodeIdentity.parse("tv1-lonely")).isEqualTo(idOnly);

        NodeIdentity partial =
                NodeIdentity.builder().external(endpoint("203.0.113.7", 6000)).build();
        assertThat(partial.isPartial()).isTrue();
        assertThat(NodeIdentity.parse(partial.toText())).isEqualTo(partial);
    }

    @Test
    void badOctetIsNamedWithItsLabel() {
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-abc.a300-0-0-1p5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a300-0-0-1p5000")
                .hasMessageContaining("300");
    }

    @Test
    void badPortsAreNamed() {
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.a10-0-0-1p0"))
                .hasMessageContaining("a10-0-0-1p0")
                .hasMessageContaining("port 0");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.a10-0-0-1p65536"))
                .hasMessageContaining("a10-0-0-1p65536")
                .hasMessageContaining("65536");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.a10-0-0-1p123456"))
                .hasMessageContaining("a10-0-0-1p123456")
                .hasMessageContaining("123456");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.a10-0-0-1p"))
                .hasMessageContaining("a10-0-0-1p")
                .hasMessageContaining("port");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.a10-0-0-1"))
                .hasMessageContaining("a10-0-0-1")
                .hasMessageContaining("'p'");
    }

    @Test
    void hostKeyRoundTripsAndTextsWithoutOneParseAsBefore() {
        NodeIdentity keyed = NodeIdentity.builder()
                .id(NodeId.of("n1"))
                .hostKey("abc234")
                .address(endpoint("10.0.0.2", 5000))
                .build();
        assertThat(keyed.toText()).isEqualTo("tv1-n1.kabc234.a10-0-0-2p5000");
        assertThat(NodeIdentity.parse("tv1-n1.kabc234.a10-0-0-2p5000")).isEqualTo(keyed);
        assertThat(NodeIdentity.parse("TV1-N1.KABC234.A10-0-0-2P5000").hostKey())
                .contains("abc234");
        // The key may stand anywhere among the labels; the canonical text puts it first.
        assertThat(NodeIdentity.parse("tv1-n1.a10-0-0-2p5000.kabc234")).isEqualTo(keyed);
        // A text written before host keys existed.
        NodeIdentity old = NodeIdentity.parse("tv1-n1.a10-0-0-2p5000");
        assertThat(old.hostKey()).isEmpty();
        assertThat(old).isNotEqualTo(keyed);
        assertThat(keyed.satisfies(old))
                .as("the same node id, with or without a key")
                .isTrue();
        assertThat(keyed.withHubs(List.of(endpoint("198.18.0.1", 17000))).hostKey())
                .contains("abc234");
    }

    @Test
    void badHostKeysAreNamed() {
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-n1.k.a10-0-0-2p5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("part 'k'")
                .hasMessageContaining("host key");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-n1.kab-c.a10-0-0-2p5000"))
                .hasMessageContaining("part 'kab-c'")
                .hasMessageContaining("host key");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-n1.k" + "a".repeat(33)))
                .hasMessageContaining("host key");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-n1.kaaa.kbbb.a10-0-0-2p5000"))
                .hasMessageContaining("part 'kbbb'")
                .hasMessageContaining("a second host key");
    }

    @Test
    void unknownKindLetterIsNamed() {
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-abc.q10-0-0-1p5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("q10-0-0-1p5000")
                .hasMessageContaining("unknown kind 'q'");
    }

    @Test
    void emptyLabelIsNamed() {
        for (String text : List.of("tv1-abc..a10-0-0-1p5000", "tv1-abc.a10-0-0-1p5000.", "tv1..a10-0-0-1p5000")) {
            assertThatThrownBy(() -> NodeIdentity.parse(text))
                    .as(text)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("empty part");
        }
    }

    @Test
    void missingMarkerIsNamed() {
        for (String text :
                List.of("abc.a10-0-0-1p5000", "tv2-abc.a10-0-0-1p5000", "tv1x.a10-0-0-1p5000", "", "10.0.0.1")) {
            assertThat(NodeIdentity.looksLikeIdentity(text)).as(text).isFalse();
            assertThatThrownBy(() -> NodeIdentity.parse(text))
                    .as(text)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("tv1");
        }
        assertThatThrownBy(() -> NodeIdentity.parse(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void overLongInputIsRefusedBeforeParsing() {
        StringBuilder sb = new StringBuilder("tv1-abc");
        while (sb.length() <= IdentityText.MAX_LENGTH) {
            sb.append(".a10-0-0-1p5000");
        }
        assertThatThrownBy(() -> NodeIdentity.parse(sb.toString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Integer.toString(IdentityText.MAX_LENGTH))
                .hasMessageContaining(Integer.toString(sb.length()));
    }

    /**
     * Found by NodeIdentityFuzzer after 3 minutes: "15z62" (one zero group written as '::') is written back as
     * "15-0-62", so an identity read from 4,076 characters had a text of 4,126, which no node could read back.
     */
    @Test
    void anInputThatGrowsPastTheLimitInCanonicalFormIsRefused() {
        String address = ".a1-2-3-4-5-6z7p1"; // 1:2:3:4:5:6::7, canonically 1-2-3-4-5-6-0-7: one character more
        StringBuilder sb = new StringBuilder("tv1-abc");
        for (int port = 1; sb.length() + address.length() + 5 <= IdentityText.MAX_LENGTH; port++) {
            sb.append(address).append(port);
        }
        String text = sb.toString();
        assertThat(text.length()).isLessThanOrEqualTo(IdentityText.MAX_LENGTH);
        assertThatThrownBy(() -> NodeIdentity.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("in canonical form, longer than " + IdentityText.MAX_LENGTH);
        // Shorter, the same addresses parse, and the identity's own text reads back as itself.
        NodeIdentity shorter = NodeIdentity.parse(text.substring(0, text.indexOf(".a", 2000)));
        assertThat(NodeIdentity.parse(shorter.toText())).isEqualTo(shorter);
    }

    @Test
    void badConfiguredIdIsNamed() {
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-bad_id.a10-0-0-1p5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tv1-bad_id")
                .hasMessageContaining("node id");
        String tooLong = "x".repeat(NodeId.MAX_LENGTH + 1);
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-" + tooLong))
                .hasMessageContaining(tooLong)
                .hasMessageContaining("1-40");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-.a10-0-0-1p5000")).hasMessageContaining("node id");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-abc-.a10-0-0-1p5000")).hasMessageContaining("abc-");
    }

    @Test
    void otherMalformedEndpointsAreNamed() {
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.a10-0-1p5000"))
                .hasMessageContaining("a10-0-1p5000")
                .hasMessageContaining("neither an IPv4");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.ap5000"))
                .hasMessageContaining("ap5000")
                .hasMessageContaining("missing IP address");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.afd00zz1p5000")).hasMessageContaining("afd00zz1p5000");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.afd00gz1p5000")).hasMessageContaining("afd00gz1p5000");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.a1-2-3-4-5-6-7-8-9p5000"))
                .hasMessageContaining("a1-2-3-4-5-6-7-8-9p5000");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1")).hasMessageContaining("needs an id or at least one address");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1.h10-0-0-1p17000"))
                .hasMessageContaining("needs an id or at least one address");
    }

    @Test
    void addressesThatAreNotUnicastAreRefusedAndNamed() {
        // A multicast or wildcard address in an identity is as wrong as a bad octet: the error names the part.
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-abc.a224-0-0-1p5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a224-0-0-1p5000");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-abc.a0-0-0-0p5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a0-0-0-0p5000");
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-abc.xff02z1p5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("xff02z1p5000");
        // Link-local IPv6 needs a zone to be used, and the text form has no place for one.
        assertThatThrownBy(() -> NodeIdentity.parse("tv1-abc.afe80z1p5000"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("afe80z1p5000")
                .hasMessageContaining("link-local");
        // Link-local IPv4 needs no zone and stays.
        assertThat(NodeIdentity.parse("tv1-abc.a169-254-0-1p5000").addresses())
                .containsExactly(endpoint("169.254.0.1", 5000));
    }

    @Test
    void builderRefusesWhatTheTextCannotCarry() {
        assertThatThrownBy(() -> NodeIdentity.builder().address(InetSocketAddress.createUnresolved("example.org", 80)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("example.org");
        assertThatThrownBy(() -> NodeIdentity.builder().address(endpoint("10.0.0.1", 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("port 0");
        assertThatThrownBy(() -> NodeIdentity.builder().address(endpoint("239.1.1.1", 80)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NodeIdentity.builder().build()).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void satisfiesFollowsThePartialIdentityRule() {
        NodeIdentity full = NodeIdentity.builder()
                .id(NodeId.of("n1"))
                .address(endpoint("10.0.0.2", 5000))
                .address(endpoint("198.18.0.2", 5000))
                .external(endpoint("203.0.113.7", 6000))
                .build();
        assertThat(full.satisfies(NodeIdentity.builder().id(NodeId.of("n1")).build()))
                .isTrue();
        assertThat(full.satisfies(NodeIdentity.builder()
                        .id(NodeId.of("n2"))
                        .address(endpoint("10.0.0.2", 5000))
                        .build()))
                .isFalse();
        assertThat(full.satisfies(NodeIdentity.builder()
                        .address(endpoint("10.0.0.2", 5000))
                        .build()))
                .isTrue();
        assertThat(full.satisfies(NodeIdentity.builder()
                        .external(endpoint("203.0.113.7", 6000))
                        .address(endpoint("198.18.0.2", 5000))
                        .build()))
                .isTrue();
        assertThat(full.satisfies(NodeIdentity.builder()
                        .address(endpoint("10.0.0.2", 5001))
                        .build()))
                .isFalse();
        assertThat(full.satisfies(NodeIdentity.builder()
                        .address(endpoint("10.0.0.2", 5000))
                        .address(endpoint("10.0.0.3", 5000))
                        .build()))
                .isFalse();
    }
}
