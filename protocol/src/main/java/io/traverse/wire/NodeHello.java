package io.traverse.wire;

import io.traverse.identity.NodeId;
import java.util.Arrays;
import java.util.Objects;

/** HELLO of a node: its id, nonce and identity text (which the hub records and gossips). */
public record NodeHello(NodeId senderId, byte[] clientNonce, String identityText) implements Hello {
    public NodeHello {
        FieldChecks.present("sender id", senderId);
        FieldChecks.exactBytes("client nonce", clientNonce, LinkLimits.NONCE_LENGTH);
        FieldChecks.nonEmptyText("identity text", identityText, LinkLimits.MAX_IDENTITY_TEXT);
    }

    @Override
    public LinkRole role() {
        return LinkRole.NODE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeHello h
                && h.senderId.equals(senderId)
                && Arrays.equals(h.clientNonce, clientNonce)
                && h.identityText.equals(identityText);
    }

    @Override
    public int hashCode() {
        return Objects.hash(senderId, Arrays.hashCode(clientNonce), identityText);
    }

    @Override
    public String toString() {
        return "NodeHello[" + senderId + ", " + identityText + "]";
    }
}
