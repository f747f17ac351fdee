package io.traverse.identity;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * IP address literals in and out, strictly, without ever asking DNS ({@link InetAddress#getByName}
 * would fall back to a lookup on anything that is not a literal).
 */
public final class IpLiterals {
    private IpLiterals() {}

    /** True if the text is an IPv4 or IPv6 literal (IPv6 with or without brackets). */
    public static boolean isLiteral(String text) {
        try {
            parse(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Parses a dotted-quad IPv4 or an RFC 4291 IPv6 literal (brackets allowed, zone ids not).
     *
     * @throws IllegalArgumentException saying what is wrong
     */
    public static InetAddress parse(String text) {
        String s = text.trim();
        if (s.startsWith("[") && s.endsWith("]")) {
            s = s.substring(1, s.length() - 1);
        }
        byte[] bytes = s.indexOf(':') >= 0 ? parseIpv6(s, text) : parseIpv4(s, text);
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen: length is 4 or 16
        }
    }

    private static byte[] parseIpv4(String s, String original) {
        String[] parts = s.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("'" + original + "' is not an IP address");
        }
        byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            out[i] = (byte) octet(parts[i], original);
        }
        return out;
    }

    static int octet(String part, String original) {
        if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + part + "' in '" + original + "' is not an IPv4 octet");
        }
        int value = Integer.parseInt(part);
        if (value > 255) {
            throw new IllegalArgumentException("IPv4 octet " + value + " in '" + original + "' is out of range 0-255");
        }
        return value;
    }

    private static byte[] parseIpv6(String s, String original) {
        if (s.indexOf('%') >= 0) {
            throw new IllegalArgumentException("zone ids are not supported: '" + original + "'");
        }
        int doubleColon = s.indexOf("::");
        if (doubleColon >= 0 && s.indexOf("::", doubleColon + 1) >= 0) {
            throw new IllegalArgumentException("'" + original + "' has more than one '::'");
        }
        String head = doubleColon >= 0 ? s.substring(0, doubleColon) : s;
        if (doubleColon >= 0 && head.indexOf('.') >= 0) {
            throw new IllegalArgumentException(
                    "'" + original + "' has a dotted IPv4 part before '::' (it may only end the address)");
        }
        String tail = doubleColon >= 0 ? s.substring(doubleColon + 2) : "";
        int[] headGroups = groups(head, original);
        int[] tailGroups = groups(tail, original);
        int total = headGroups.length + tailGroups.length;
        if (doubleColon < 0 ? total != 8 : total > 7) {
            throw new IllegalArgumentException("'" + original + "' does not have 8 IPv6 groups");
        }
        byte[] out = new byte[16];
        for (int i = 0; i < headGroups.length; i++) {
            out[2 * i] = (byte) (headGroups[i] >> 8);
            out[2 * i + 1] = (byte) headGroups[i];
        }
        int offset = 8 - tailGroups.length;
        for (int i = 0; i < tailGroups.length; i++) {
            out[2 * (offset + i)] = (byte) (tailGroups[i] >> 8);
            out[2 * (offset + i) + 1] = (byte) tailGroups[i];
        }
        return out;
    }

    /** Colon-separated hex groups; a dotted quad is allowed as the last item and counts as two groups. */
    private static int[] groups(String part, String original) {
        if (part.isEmpty()) {
            return new int[0];
        }
        String[] items = part.split(":", -1);
        int count = items.length;
        boolean embeddedIpv4 = items[count - 1].indexOf('.') >= 0;
        int[] out = new int[embeddedIpv4 ? count + 1 : count];
        for (int i = 0; i < count; i++) {
            String item = items[i];
            if (embeddedIpv4 && i == count - 1) {
                byte[] v4 = parseIpv4(item, original);
                out[i] = ((v4[0] & 0xff) << 8) | (v4[1] & 0xff);
                out[i + 1] = ((v4[2] & 0xff) << 8) | (v4[3] & 0xff);
            } else {
                out[i] = hexGroup(item, original);
            }
        }
        return out;
    }

    static int hexGroup(String item, String original) {
        if (item.isEmpty() || item.length() > 4) {
            throw new IllegalArgumentException("'" + item + "' in '" + original + "' is not an IPv6 group");
        }
        int value = 0;
        for (int i = 0; i < item.length(); i++) {
            char c = item.charAt(i);
            int digit = c < 128
                    ? Character.digit(c, 16)
                    : -1; // ASCII only: Character.digit also takes e.g. fullwidth digits
            if (digit < 0) {
                throw new IllegalArgumentException("'" + item + "' in '" + original + "' is not an IPv6 group");
            }
            value = value * 16 + digit;
        }
        return value;
    }

    /** The canonical text of an address: dotted quad, or RFC 5952 compressed lower-case IPv6. */
    public static String format(InetAddress address) {
        if (address instanceof Inet4Address) {
            return address.getHostAddress();
        }
        int[] groups = ipv6Groups((Inet6Address) address);
        int bestStart = -1;
        int bestLength = 1; // RFC 5952: a single zero group is not compressed
        for (int i = 0; i < 8; ) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLength - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        return sb.toString();
    }

    static int[] ipv6Groups(Inet6Address address) {
        byte[] b = address.getAddress();
        int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
        }
        return groups;
    }

    /** {@code host:port} with brackets around IPv6, as URLs and {@code traverse.hubs} write it. */
    public static String formatEndpoint(InetAddress address, int port) {
        String host = format(address);
        return (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
    }
}
