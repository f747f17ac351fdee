package io.traverse.wire;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import org.junit.jupiter.api.Test;

class LinkAuthenticationTest {
    private final NodeId dialer = NodeId.of("dialer");
    private final NodeId acceptor = NodeId.of("acceptor");
    private final byte[] clientNonce = LinkAuthentication.newNonce();
    private final byte[] serverNonce = LinkAuthentication.newNonce();

    @Test
    void bothSidesWithTheSameTokenAgree() {
        LinkAuthentication a = new LinkAuthentication("s3cret");
        LinkAuthentication b = new LinkAuthentication("s3cret");
        byte[] proof = a.dialerProof(clientNonce, serverNonce, dialer, acceptor);
        assertThat(proof).hasSize(LinkLimits.MAC_LENGTH);
        assertThat(b.isValidDialerProof(proof, clientNonce, serverNonce, dialer, acceptor))
                .isTrue();
        byte[] answer = b.acceptorProof(serverNonce, clientNonce, acceptor, dialer);
        assertThat(a.isValidAcceptorProof(answer, serverNonce, clientNonce, acceptor, dialer))
                .isTrue();
    }

    @Test
    void aWrongTokenOrAReplayOnAnotherLinkFails() {
        LinkAuthentication right = new LinkAuthentication("s3cret");
        LinkAuthentication wrong = new LinkAuthentication("guess");
        byte[] proof = wrong.dialerProof(clientNonce, serverNonce, dialer, acceptor);
        assertThat(right.isValidDialerProof(proof, clientNonce, serverNonce, dialer, acceptor))
                .isFalse();
        byte[] recorded = right.dialerProof(clientNonce, serverNonce, dialer, acceptor);
        assertThat(right.isValidDialerProof(recorded, clientNonce, LinkAuthentication.newNonce(), dialer, acceptor))
                .isFalse();
        assertThat(right.isValidDialerProof(recorded, clientNonce, serverNonce, NodeId.of("mallory"), acceptor))
                .isFalse();
    }

    @Test
    void aProofOfOneDirectionIsNotAProofOfTheOther() {
        LinkAuthentication auth = new LinkAuthentication("s3cret");
        byte[] dialerProof = auth.dialerProof(clientNonce, clientNonce, dialer, dialer);
        assertThat(auth.isValidAcceptorProof(dialerProof, clientNonce, clientNonce, dialer, dialer))
                .isFalse();
    }

    @Test
    void anEmptyTokenWorksButIsFlagged() {
        LinkAuthentication empty = new LinkAuthentication("");
        assertThat(empty.hasEmptyToken()).isTrue();
        assertThat(new LinkAuthentication("x").hasEmptyToken()).isFalse();
        byte[] proof = empty.dialerProof(clientNonce, serverNonce, dialer, acceptor);
        assertThat(new LinkAuthentication("").isValidDialerProof(proof, clientNonce, serverNonce, dialer, acceptor))
                .isTrue();
        assertThat(new LinkAuthentication("x").isValidDialerProof(proof, clientNonce, serverNonce, dialer, acceptor))
                .isFalse();
    }

    @Test
    void noncesAreFresh() {
        assertThat(LinkAuthentication.newNonce()).hasSize(32).isNotEqualTo(LinkAuthentication.newNonce());
    }
}
