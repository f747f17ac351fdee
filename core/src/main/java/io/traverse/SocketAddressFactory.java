package io.traverse;

import io.traverse.identity.IpLiterals;
import io.traverse.identity.NodeIdentity;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Turns any destination string into a {@link SocketAddress} (paper §3.4): a virtual address
 * {@code NODE:PORT} becomes a {@link VirtualSocketAddress}; {@code host:port} and
 * {@code [v6]:port} become an {@link InetSocketAddress} (IP literals resolved, names left
 * unresolved so no DNS happens here).
 */
public final class SocketAddressFactory {
    public SocketAddressFactory() {}

    /** Same as {@link #parse}; named as in the paper's example. */
    public SocketAddress createSocketAddress(String text) {
        return parse(text);
    }

    /**
     * @throws IllegalArgumentException whose message names the offending part
     */
    public static SocketAddress parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("address is empty");
        }
        String trimmed = text.trim();
        if (NodeIdentity.looksLikeIdentity(trimmed)) {
            return VirtualSocketAddress.parse(trimmed);
        }
        String host;
        String portText;
        if (trimmed.startsWith("[")) {
            int close = trimmed.indexOf(']');
            if (close < 0 || close + 1 >= trimmed.length() || trimmed.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("'" + text + "' must look like [IPv6]:PORT");
            }
            host = trimmed.substring(1, close);
            portText = trimmed.substring(close + 2);
        } else {
            int colon = trimmed.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("'" + text + "' has no ':PORT' at the end");
            }
            if (trimmed.indexOf(':') != colon) {
                throw new IllegalArgumentException("'" + text + "': write IPv6 addresses as [ADDRESS]:PORT");
            }
            host = trimmed.substring(0, colon);
            portText = trimmed.substring(colon + 1);
        }
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port '" + portText + "' of '" + text + "' is not a number");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " of '" + text + "' is not within 0-65535");
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("'" + text + "' has no host before the port");
        }
        if (IpLiterals.isLiteral(host)) {
            return new InetSocketAddress(IpLiterals.parse(host), port);
        }
        return InetSocketAddress.createUnresolved(host, port);
    }
}
