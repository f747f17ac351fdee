package io.traverse.wire;

import io.traverse.identity.NodeId;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * HELLO of a hub: its id, nonce, name, the addresses it can be dialled at (possibly none: a hub
 * that can only dial out) and its current state number.
 */
public record HubHello(
        NodeId senderId, byte[] clientNonce, String hubName, List<String> linkAddresses, long stateNumber)
        implements Hello {
    public HubHello {
        FieldChecks.present("sender id", senderId);
        FieldChecks.exactBytes("client nonce", clientNonce, LinkLimits.NONCE_LENGTH);
        FieldChecks.hubName(hubName);
        linkAddresses = FieldChecks.linkAddresses(linkAddresses);
    }

    @Override
    public LinkRole role() {
        return LinkRole.HUB;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HubHello h
                && h.senderId.equals(senderId)
                && Arrays.equals(h.clientNonce, clientNonce)
                && h.hubName.equals(hubName)
                && h.linkAddresses.equals(linkAddresses)
                && h.stateNumber == stateNumber;
    }

    @Override
    public int hashCode() {
        return Objects.hash(senderId, Arrays.hashCode(clientNonce), hubName, linkAddresses, stateNumber);
    }

    @Override
    public String toString() {
        return "HubHello[" + senderId + ", " + hubName + ", " + linkAddresses + ", state " + stateNumber + "]";
    }
}
