package io.traverse.wire;

import java.util.Arrays;

/** The dialer's proof that it knows the network token ({@link LinkAuthentication#dialerProof}). */
public record Auth(byte[] mac) implements LinkMessage {
    public Auth {
        FieldChecks.exactBytes("mac", mac, LinkLimits.MAC_LENGTH);
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.AUTH;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Auth a && Arrays.equals(a.mac, mac);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(mac);
    }

    @Override
    public String toString() {
        return "Auth[]";
    }
}
