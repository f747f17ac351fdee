package io.traverse.identity;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of a node identity's text form ({@link IdentityText}), which arrives in
 * handshakes, host strings and gossip: {@link NodeIdentity#parse} yields an identity or throws
 * {@link IllegalArgumentException} with a message, and an identity's text parses back to it. The
 * first byte chooses how the rest becomes text: Latin-1 (as a handshake reads it) or UTF-8 (as a
 * host string may carry it).
 */
class NodeIdentityFuzzer {
    @FuzzTest(maxDuration = "10m")
    void parse(byte[] input) {
        if (input.length == 0) {
            return;
        }
        String text = new String(
                input, 1, input.length - 1, (input[0] & 1) == 0 ? StandardCharsets.ISO_8859_1 : StandardCharsets.UTF_8);
        NodeIdentity identity;
        try {
            identity = NodeIdentity.parse(text);
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        assertThat(NodeIdentity.looksLikeIdentity(text.trim())).isTrue(); // parse ignores blanks around the text
        NodeIdentity again = NodeIdentity.parse(identity.toText());
        assertThat(again).isEqualTo(identity);
        assertThat(again.toText()).isEqualTo(identity.toText());
    }
}
