package io.traverse.wire;

import java.net.InetSocketAddress;

/**
 * The {@code host:port} text by which a hub can be dialled (IPv6 literals in brackets,
 * {@code [fd00::1]:17000}). Parsing never resolves a host name.
 */
public final class LinkAddress {
    /** The hub link port when none is given. */
    public static final int DEFAULT_PORT = 17000;

    private LinkAddress() {}

    /**
     * An unresolved socket address from {@code host:port}.
     *
     * @throws IllegalArgumentException if the text is not {@code host:port} with a port of 1-65535
     */
    public static InetSocketAddress parse(String text) {
        return parse(text, -1);
    }

    /**
     * Like {@link #parse(String)}, but {@code host} alone means {@code host:defaultPort}.
     */
    public static InetSocketAddress parse(String text, int defaultPort) {
        if (text == null || text.isEmpty() || FieldChecks.utf8Length(text) > LinkLimits.MAX_LINK_ADDRESS) {
            throw new IllegalArgumentException(
                    "link address must be host:port of at most " + LinkLimits.MAX_LINK_ADDRESS + " characters");
        }
        String host;
        String port;
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("link address '" + text + "' has no closing ']'");
            }
            host = text.substring(1, close);
            String rest = text.substring(close + 1);
            if (rest.isEmpty() && defaultPort > 0) {
                port = null;
            } else if (!rest.startsWith(":")) {
                throw new IllegalArgumentException("link address '" + text + "' must be [ipv6]:port");
            } else {
                port = rest.substring(1);
            }
        } else {
            int colon = text.lastIndexOf(':');
            if (colon < 0 && defaultPort > 0) {
                host = text;
                port = null;
            } else if (colon < 0 || text.indexOf(':') != colon) {
                throw new IllegalArgumentException("link address '" + text + "' must be host:port (IPv6 in brackets)");
            } else {
                host = text.substring(0, colon);
                port = text.substring(colon + 1);
            }
        }
        if (host.isEmpty() || !host.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '/' && c != '@')) {
            throw new IllegalArgumentException("link address '" + text + "' has no valid host");
        }
        int portNumber;
        if (port == null) {
            portNumber = defaultPort;
        } else {
            try {
                portNumber = port.length() > 5 ? -1 : Integer.parseInt(port);
            } catch (NumberFormatException e) {
                portNumber = -1;
            }
        }
        if (portNumber < 1 || portNumber > 65535) {
            throw new IllegalArgumentException("link address '" + text + "' needs a port of 1-65535");
        }
        return InetSocketAddress.createUnresolved(host, portNumber);
    }

    /** The text form of an address: {@code host:port}, IPv6 literals in brackets. */
    public static String format(InetSocketAddress address) {
        String host = address.getHostString();
        if (host.indexOf(':') >= 0) {
            host = "[" + host + "]";
        }
        return host + ":" + address.getPort();
    }
}
