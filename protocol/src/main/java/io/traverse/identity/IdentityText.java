package io.traverse.identity;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The text form of a {@link NodeIdentity}, made only of hostname labels so that it survives
 * wherever a host name goes (URLs, JDBC strings, {@code InetSocketAddress.createUnresolved}).
 *
 * <pre>
 *   tv1[-ID] [ .kHOSTKEY ] ( .aENDPOINT | .xENDPOINT | .hENDPOINT )*
 *   HOSTKEY  = 1-32 of a-z 0-9 (see HostKey)
 *   ENDPOINT = IPV4 'p' PORT | IPV6 'p' PORT
 *   IPV4     = dotted quad with '-' for '.'            198.18.0.1   -> 198-18-0-1
 *   IPV6     = RFC 5952 text with 'z' for '::' and '-' for ':'   fd00::1 -> fd00z1
 * </pre>
 * {@code k} = host key, {@code a} = interface address, {@code x} = external address, {@code h} = hub
 * hint. Every label starts with a letter, as the last label of a URL host must. Texts without a
 * host key (written before it existed, or by a node that cannot know its own) parse as before.
 */
final class IdentityText {
    static final String MARKER = "tv1";
    /** Longer texts are refused before any parsing: bounded work for untrusted input. */
    static final int MAX_LENGTH = 4096;

    private IdentityText() {}

    static boolean hasMarker(String text) {
        if (text == null
                || text.length() < MARKER.length()
                || !text.regionMatches(true, 0, MARKER, 0, MARKER.length())) {
            return false;
        }
        return text.length() == MARKER.length()
                || text.charAt(MARKER.length()) == '.'
                || text.charAt(MARKER.length()) == '-';
    }

    static String format(NodeIdentity identity) {
        StringBuilder sb = new StringBuilder(MARKER);
        identity.id().ifPresent(id -> sb.append('-').append(id));
        identity.hostKey().ifPresent(key -> sb.append(".k").append(key));
        identity.addresses().forEach(a -> sb.append(".a").append(endpoint(a)));
        identity.externals().forEach(a -> sb.append(".x").append(endpoint(a)));
        identity.hubs().forEach(a -> sb.append(".h").append(endpoint(a)));
        return sb.toString();
    }

    private static String endpoint(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        String text = ip instanceof Inet4Address
                ? ip.getHostAddress().replace('.', '-')
                : IpLiterals.format(ip).replace("::", "z").replace(':', '-');
        return text + "p" + address.getPort();
    }

    /**
     * Parsed identities by exact input text. Connections to the same node repeat the same text
     * (host strings, handshakes), and identities are immutable. Handshakes let strangers choose
     * these texts, so the cache holds only ordinary-sized ones and is cleared when full: at most
     * about {@code CACHE_LIMIT * CACHEABLE_LENGTH} characters.
     */
    private static final int CACHE_LIMIT = 1024;

    private static final int CACHEABLE_LENGTH = 512;
    private static final ConcurrentHashMap<String, NodeIdentity> PARSED = new ConcurrentHashMap<>();

    static NodeIdentity parse(String text) {
        if (text == null || text.length() > CACHEABLE_LENGTH) {
            return parseUncached(text);
        }
        NodeIdentity known = PARSED.get(text);
        if (known != null) {
            return known;
        }
        NodeIdentity parsed = parseUncached(text);
        if (PARSED.size() >= CACHE_LIMIT) {
            PARSED.clear();
        }
        PARSED.put(text, parsed);
        return parsed;
    }

    private static NodeIdentity parseUncached(String text) {
        if (text == null) {
            throw new IllegalArgumentException("node address is null");
        }
        if (text.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "node address of " + text.length() + " characters is longer than " + MAX_LENGTH);
        }
        String lower = text.trim().toLowerCase(Locale.ROOT);
        if (!hasMarker(lower)) {
            throw new IllegalArgumentException(
                    "'" + abbreviate(text) + "' is not a node address: it must start with '" + MARKER + "'");
        }
        String[] labels = lower.split("\\.", -1);
        NodeIdentity.Builder builder = NodeIdentity.builder();
        String first = labels[0];
        if (first.length() > MARKER.length()) {
            String idText = first.substring(MARKER.length() + 1);
            try {
                builder.id(NodeId.of(idText));
            } catch (IllegalArgumentException e) {
                throw problem(text, first, e.getMessage());
            }
        }
        boolean hostKeySeen = false;
        for (int i = 1; i < labels.length; i++) {
            String label = labels[i];
            if (label.isEmpty()) {
                throw problem(text, label, "empty part (two dots in a row, or a dot at the end)");
            }
            char kind = label.charAt(0);
            if (kind == 'k') {
                if (hostKeySeen) {
                    throw problem(text, label, "a second host key");
                }
                hostKeySeen = true;
                try {
                    builder.hostKey(label.substring(1));
                } catch (IllegalArgumentException e) {
                    throw problem(text, label, e.getMessage());
                }
                continue;
            }
            if (kind != 'a' && kind != 'x' && kind != 'h') {
                throw problem(
                        text, label, "unknown kind '" + kind + "' (a = address, x = external, h = hub, k = host key)");
            }
            try {
                // The builder refuses addresses no node can have (multicast, wildcard, link-local IPv6).
                InetSocketAddress endpoint = parseEndpoint(label.substring(1));
                switch (kind) {
                    case 'a' -> builder.address(endpoint);
                    case 'x' -> builder.external(endpoint);
                    default -> builder.hub(endpoint);
                }
            } catch (IllegalArgumentException e) {
                throw problem(text, label, e.getMessage());
            }
        }
        NodeIdentity identity;
        try {
            identity = builder.build();
        } catch (IllegalArgumentException e) {
            throw problem(text, first, e.getMessage());
        }
        // The text is written in canonical form, which can be longer than what was read (an IPv6 '::' for
        // one zero group is written as '0'): an identity whose own text could not be read back is refused.
        int length = identity.toText().length();
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("node address '" + abbreviate(text) + "' is " + length
                    + " characters in canonical form, longer than " + MAX_LENGTH);
        }
        return identity;
    }

    private static InetSocketAddress parseEndpoint(String text) {
        int p = text.lastIndexOf('p');
        if (p < 0) {
            throw new IllegalArgumentException("missing 'p' and port");
        }
        String portText = text.substring(p + 1);
        int port = parsePort(portText);
        String ipText = text.substring(0, p);
        if (ipText.isEmpty()) {
            throw new IllegalArgumentException("missing IP address before 'p'");
        }
        String[] groups = ipText.split("-", -1);
        InetAddress ip;
        if (ipText.indexOf('z') < 0 && groups.length == 4) {
            byte[] b = new byte[4];
            for (int i = 0; i < 4; i++) {
                b[i] = (byte) IpLiterals.octet(groups[i], ipText);
            }
            ip = IpLiterals.parse((b[0] & 0xff) + "." + (b[1] & 0xff) + "." + (b[2] & 0xff) + "." + (b[3] & 0xff));
        } else if (ipText.indexOf('z') >= 0 || groups.length == 8) {
            ip = IpLiterals.parse(ipText.replace("z", "::").replace('-', ':'));
        } else {
            throw new IllegalArgumentException("'" + ipText + "' is neither an IPv4 (4 groups) nor an IPv6 address");
        }
        return new InetSocketAddress(ip, port);
    }

    static int parsePort(String portText) {
        if (portText.isEmpty() || portText.length() > 5 || !portText.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("port '" + portText + "' is not a number 1-65535");
        }
        int port = Integer.parseInt(portText);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not within 1-65535");
        }
        return port;
    }

    private static IllegalArgumentException problem(String text, String part, String message) {
        return new IllegalArgumentException(
                "invalid node address '" + abbreviate(text) + "': part '" + part + "': " + message);
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "...";
    }
}
