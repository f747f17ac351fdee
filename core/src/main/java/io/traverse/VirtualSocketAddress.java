package io.traverse;

import io.traverse.identity.NodeIdentity;
import java.net.SocketAddress;
import java.util.Objects;

/**
 * A virtual port on a Traverse node: {@code NODE:PORT}, where NODE carries the node id, its direct
 * addresses and hub hints (see {@link NodeIdentity}), so the address works with no hub at all.
 * The text form is what {@link #toString()} gives and {@link #parse} and
 * {@link SocketAddressFactory} accept; NODE is also accepted as a host name by
 * {@code TraverseSocketFactory.createSocket(getHostString(), getPort())} and inside an unresolved
 * {@code InetSocketAddress}.
 */
public final class VirtualSocketAddress extends SocketAddress {
    private static final long serialVersionUID = 1L;

    private final transient NodeIdentity node;
    private final String hostString;
    private final int port;

    public VirtualSocketAddress(NodeIdentity node, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not within 0-65535");
        }
        this.node = Objects.requireNonNull(node, "node");
        this.hostString = node.toText();
        this.port = port;
    }

    /**
     * Parses {@code NODE:PORT}.
     *
     * @throws IllegalArgumentException whose message names the offending part
     */
    public static VirtualSocketAddress parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("virtual address is null");
        }
        String trimmed = text.trim();
        int colon = trimmed.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("virtual address '" + text + "' has no ':PORT' at the end");
        }
        String portText = trimmed.substring(colon + 1);
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "port '" + portText + "' of virtual address '" + text + "' is not a number");
        }
        if (port < 0 || port > 65535) {
            // 0 as in the constructor (and InetSocketAddress), so that toString() always parses back
            throw new IllegalArgumentException(
                    "port " + port + " of virtual address '" + text + "' is not within 0-65535");
        }
        return new VirtualSocketAddress(NodeIdentity.parse(trimmed.substring(0, colon)), port);
    }

    /** The node part. */
    public NodeIdentity node() {
        return node;
    }

    /** The NODE text, usable as a host name. */
    public String getHostString() {
        return hostString;
    }

    /** The virtual port. */
    public int getPort() {
        return port;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof VirtualSocketAddress other && other.port == port && other.node.equals(node);
    }

    @Override
    public int hashCode() {
        return node.hashCode() * 31 + port;
    }

    @Override
    public String toString() {
        return hostString + ":" + port;
    }

    private Object readResolve() {
        return parse(toString());
    }
}
