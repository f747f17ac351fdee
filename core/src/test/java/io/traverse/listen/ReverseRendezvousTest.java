package io.traverse.listen;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import io.traverse.protocol.DialBackProof;
import io.traverse.spi.InboundConnections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A REVERSE handshake is handed to the waiting connect only with the proof of its token made by
 * the node asked, for its port, once: the token itself (as a hub or anyone who saw the side
 * channel holds it), a proof made for another node or port, and a replay are refused.
 */
class ReverseRendezvousTest {
    private static final NodeId SELF = NodeId.of("asking-node");
    private static final NodeId ASKED = NodeId.of("asked-node");
    private static final NodeId OTHER = NodeId.of("other-node");
    private static final int PORT = 5432;

    private final ReverseRendezvous rendezvous = new ReverseRendezvous(() -> SELF);

    @AfterEach
    void nothingLeftWaiting() {
        assertThat(rendezvous.pending()).isZero();
    }

    @Test
    void theAskedNodesProofIsTakenOnceAndAReplayOfItIsRefused() {
        try (InboundConnections.Expectation waiting = rendezvous.expect(ASKED, PORT)) {
            byte[] proof = DialBackProof.of(waiting.token(), SELF, ASKED, PORT);
            assertThat(rendezvous.claim(proof, ASKED)).isNotNull();
            assertThat(rendezvous.claim(proof, ASKED)).as("a replay").isNull();
        }
    }

    @Test
    void theTokenItselfIsRefused() {
        try (InboundConnections.Expectation waiting = rendezvous.expect(ASKED, PORT)) {
            assertThat(rendezvous.claim(waiting.token(), ASKED))
                    .as("the token in clear")
                    .isNull();
            assertThat(rendezvous.claim(DialBackProof.of(waiting.token(), SELF, ASKED, PORT), ASKED))
                    .as("a refusal leaves the expectation to the asked node")
                    .isNotNull();
        }
    }

    @Test
    void aProofMadeForAnotherNodeOrPortOrListenerOrStatedByAnotherNodeIsRefused() {
        try (InboundConnections.Expectation waiting = rendezvous.expect(ASKED, PORT)) {
            byte[] token = waiting.token();
            assertThat(rendezvous.claim(DialBackProof.of(token, SELF, OTHER, PORT), OTHER))
                    .as("another node that learnt the token")
                    .isNull();
            assertThat(rendezvous.claim(DialBackProof.of(token, SELF, ASKED, PORT), OTHER))
                    .as("the asked node's proof from another node")
                    .isNull();
            assertThat(rendezvous.claim(DialBackProof.of(token, SELF, ASKED, PORT + 1), ASKED))
                    .as("another virtual port")
                    .isNull();
            assertThat(rendezvous.claim(DialBackProof.of(token, OTHER, ASKED, PORT), ASKED))
                    .as("made for another listener")
                    .isNull();
            assertThat(rendezvous.claim(DialBackProof.of(token, SELF, ASKED, PORT), ASKED))
                    .isNotNull();
        }
    }
}
