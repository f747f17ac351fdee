package io.traverse.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The proof a dial-back carries instead of its token: the documented formula, and bound to every input. */
class DialBackProofTest {
    private static final NodeId LISTENER = NodeId.of("listener-node");
    private static final NodeId DIALLER = NodeId.of("dialler-node");

    @Test
    void theProofIsTheDocumentedHmac() {
        byte[] token = new byte[IdentityHandshake.TOKEN_LENGTH];
        for (int i = 0; i < token.length; i++) {
            token[i] = (byte) i;
        }
        // Computed apart from this code, from the formula in docs/protocol.md (Python's hmac module).
        assertThat(HexFormat.of().formatHex(DialBackProof.of(token, LISTENER, DIALLER, 8080)))
                .isEqualTo("95e5e9e43698ebe783d4b6572562ddb1");
    }

    @Test
    void aProofIsBoundToTheTokenBothNodesAndThePort() {
        byte[] token = new byte[IdentityHandshake.TOKEN_LENGTH];
        new Random(25).nextBytes(token);
        byte[] otherToken = token.clone();
        otherToken[0] ^= 1;
        byte[] proof = DialBackProof.of(token, LISTENER, DIALLER, 80);

        assertThat(proof).hasSize(DialBackProof.LENGTH).isNotEqualTo(token);
        assertThat(DialBackProof.of(token, LISTENER, DIALLER, 80)).isEqualTo(proof);
        assertThat(DialBackProof.of(otherToken, LISTENER, DIALLER, 80)).isNotEqualTo(proof);
        assertThat(DialBackProof.of(token, DIALLER, LISTENER, 80)).isNotEqualTo(proof);
        assertThat(DialBackProof.of(token, LISTENER, NodeId.of("another-node"), 80))
                .isNotEqualTo(proof);
        assertThat(DialBackProof.of(token, LISTENER, DIALLER, 81)).isNotEqualTo(proof);
    }
}
