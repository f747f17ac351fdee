package io.traverse.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class NodeIdTest {
    @Test
    void randomIdsAreUniqueAnd26Base32Characters() {
        Set<NodeId> seen = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            NodeId id = NodeId.random();
            String text = id.toString();
            assertThat(text).hasSize(26).matches("[a-z2-7]{26}");
            // 128 bits = 25 characters of 5 bits + 3 bits; the last character's 2 padding bits are zero.
            assertThat("aeimquy4").contains(text.substring(25));
            assertThat(seen.add(id)).as("duplicate id %s after %d ids", id, i).isTrue();
            assertThat(NodeId.of(text)).isEqualTo(id);
        }
    }

    @Test
    void base32MatchesRfc4648Vectors() {
        // RFC 4648 section 10, lower case and without padding.
        List<String[]> vectors = List.of(
                new String[] {"", ""},
                new String[] {"f", "my"},
                new String[] {"fo", "mzxq"},
                new String[] {"foo", "mzxw6"},
                new String[] {"foob", "mzxw6yq"},
                new String[] {"fooba", "mzxw6ytb"},
                new String[] {"foobar", "mzxw6ytboi"});
        for (String[] v : vectors) {
            assertThat(NodeId.base32(v[0].getBytes(StandardCharsets.US_ASCII)))
                    .as(v[0])
                    .isEqualTo(v[1]);
        }
    }

    @Test
    void configuredIdsAreFoldedToLowerCase() {
        assertThat(NodeId.of("Node-1").toString()).isEqualTo("node-1");
        assertThat(NodeId.of("  db7 ").toString()).isEqualTo("db7");
        assertThat(NodeId.of("Node-1")).isEqualTo(NodeId.of("node-1")).hasSameHashCodeAs(NodeId.of("NODE-1"));
        assertThat(NodeId.of("a")).isNotNull();
        assertThat(NodeId.of("x".repeat(40)).toString()).hasSize(40);
        assertThat(NodeId.of("a--b").toString()).isEqualTo("a--b");
    }

    @Test
    void configuredIdsMustBeHostnameSafe() {
        for (String bad : List.of("", " ", "-a", "a-", "-", "a_b", "a.b", "a b", "x".repeat(41), "ñu", "a:b", "a/b")) {
            assertThatThrownBy(() -> NodeId.of(bad))
                    .as("'%s'", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("node id '" + bad + "'")
                    .hasMessageContaining("1-40");
        }
    }

    @Test
    void shortFormAndOrdering() {
        assertThat(NodeId.of("abcdefghijk").shortForm()).isEqualTo("abcdefgh");
        assertThat(NodeId.of("abc").shortForm()).isEqualTo("abc");
        assertThat(NodeId.of("a").compareTo(NodeId.of("b"))).isNegative();
    }

    @Test
    void sixteenBytesMakeAStableBase32Id() {
        byte[] bytes = new byte[16];
        bytes[0] = (byte) 0xFF;
        NodeId id = NodeId.fromBytes(bytes);
        assertThat(id.toString()).hasSize(26).startsWith("74");
        assertThat(NodeId.fromBytes(bytes.clone())).isEqualTo(id);
        assertThat(NodeId.of(id.toString())).isEqualTo(id);
        assertThatThrownBy(() -> NodeId.fromBytes(new byte[15])).isInstanceOf(IllegalArgumentException.class);
    }
}
