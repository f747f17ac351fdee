package io.traverse.wire;

import io.traverse.identity.NodeId;
import java.util.Arrays;
import java.util.Objects;

/** The acceptor's answer to HELLO: its id and its nonce. */
public record Challenge(NodeId acceptorId, byte[] serverNonce) implements LinkMessage {
    public Challenge {
        FieldChecks.present("acceptor id", acceptorId);
        FieldChecks.exactBytes("server nonce", serverNonce, LinkLimits.NONCE_LENGTH);
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.CHALLENGE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Challenge c && c.acceptorId.equals(acceptorId) && Arrays.equals(c.serverNonce, serverNonce);
    }

    @Override
    public int hashCode() {
        return Objects.hash(acceptorId, Arrays.hashCode(serverNonce));
    }

    @Override
    public String toString() {
        return "Challenge[" + acceptorId + "]";
    }
}
