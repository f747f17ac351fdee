package io.traverse.direct.portmap;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * One TCP port mapping a router granted: its public side, the local side it forwards to, and
 * the lease it granted (renewed at half of it).
 *
 * @param protocol    {@code upnp}, {@code pcp} or {@code natpmp}
 * @param external    the router's public address and the mapped port
 * @param internal    this host's address and port the mapping forwards to
 * @param lease       what the router granted ({@link Duration#ZERO}: no expiry, UPnP's "permanent")
 * @param nonce       PCP's mapping nonce (renewals and deletion must repeat it); empty otherwise
 */
public record MappedPort(
        String protocol, InetSocketAddress external, InetSocketAddress internal, Duration lease, byte[] nonce) {
    public InetAddress externalAddress() {
        return external.getAddress();
    }

    @Override
    public String toString() {
        return protocol + " " + external.getAddress().getHostAddress() + ":" + external.getPort() + " -> "
                + internal.getAddress().getHostAddress() + ":" + internal.getPort() + " (lease " + lease.toSeconds()
                + " s)";
    }
}
