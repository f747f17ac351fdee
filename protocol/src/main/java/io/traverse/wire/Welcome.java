package io.traverse.wire;

import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Objects;

/**
 * The acceptor accepts: its own proof of the token ({@link LinkAuthentication#acceptorProof}),
 * the address and port it saw the link come from (the dialer's external endpoint, which the
 * splice module needs), and the keepalive interval both ends use.
 */
public record Welcome(byte[] mac, InetSocketAddress observedAddress, int keepaliveMillis) implements LinkMessage {
    public Welcome {
        FieldChecks.exactBytes("mac", mac, LinkLimits.MAC_LENGTH);
        FieldChecks.present("observed address", observedAddress);
        if (observedAddress.isUnresolved()) {
            throw new IllegalArgumentException("observed address must be an IP address, not " + observedAddress);
        }
        FieldChecks.range("observed port", observedAddress.getPort(), 0, 65535);
        FieldChecks.range(
                "keepalive interval",
                keepaliveMillis,
                LinkLimits.MIN_KEEPALIVE_MILLIS,
                LinkLimits.MAX_KEEPALIVE_MILLIS);
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.WELCOME;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Welcome w
                && Arrays.equals(w.mac, mac)
                && w.observedAddress.equals(observedAddress)
                && w.keepaliveMillis == keepaliveMillis;
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(mac), observedAddress, keepaliveMillis);
    }

    @Override
    public String toString() {
        return "Welcome[observed " + observedAddress + ", keepalive " + keepaliveMillis + " ms]";
    }
}
