package io.traverse.identity;

import java.security.SecureRandom;
import java.util.Locale;

/**
 * The identifier of a node: unique even when every address of the node is private (paper §3.2.1
 * adds a UUID in that case; we always carry one). Random ids are 128 bits written as 26 base32
 * characters; a configured id is any hostname-safe label of at most 40 characters.
 */
public final class NodeId implements Comparable<NodeId> {
    public static final int MAX_LENGTH = 40;
    private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String text;

    private NodeId(String text) {
        this.text = text;
    }

    /** A fresh random 128-bit id. */
    public static NodeId random() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return new NodeId(base32(bytes));
    }

    /**
     * The id written by 16 given bytes (26 base32 characters), e.g. a digest: every node and hub id
     * is the digest of its key ({@code io.traverse.security.IdentityKey}).
     *
     * @throws IllegalArgumentException unless exactly 16 bytes are given
     */
    public static NodeId fromBytes(byte[] bytes) {
        if (bytes.length != 16) {
            throw new IllegalArgumentException("a node id is made of 16 bytes, not " + bytes.length);
        }
        return new NodeId(base32(bytes));
    }

    /**
     * A configured id. Letters are folded to lower case, as host names are.
     *
     * @throws IllegalArgumentException if the text is not a hostname-safe label of 1–40 characters
     */
    public static NodeId of(String text) {
        String lower = text.trim().toLowerCase(Locale.ROOT);
        if (!isWellFormed(lower)) {
            throw new IllegalArgumentException("node id '" + text + "' must be 1-" + MAX_LENGTH
                    + " letters, digits or '-', not starting or ending with '-'");
        }
        return new NodeId(lower);
    }

    /**
     * The id exactly as written, or null unless the text is a well-formed id already in canonical
     * (lower case, trimmed) form: the fast path for decoding ids from the wire.
     */
    public static NodeId ofCanonicalOrNull(String text) {
        return isWellFormed(text) ? new NodeId(text) : null;
    }

    /**
     * 1–40 of a-z, 0-9 and '-', not starting or ending with '-'; checked by hand, not by a regular
     * expression, because hubs decode ids by the thousand from gossip.
     */
    private static boolean isWellFormed(String id) {
        int n = id.length();
        if (n == 0 || n > MAX_LENGTH || id.charAt(0) == '-' || id.charAt(n - 1) == '-') {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = id.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
                return false;
            }
        }
        return true;
    }

    static String base32(byte[] bytes) {
        StringBuilder sb = new StringBuilder((bytes.length * 8 + 4) / 5);
        int buffer = 0;
        int bits = 0;
        for (byte b : bytes) {
            buffer = (buffer << 8) | (b & 0xff);
            bits += 8;
            while (bits >= 5) {
                sb.append(BASE32[(buffer >> (bits - 5)) & 31]);
                bits -= 5;
            }
        }
        if (bits > 0) {
            sb.append(BASE32[(buffer << (5 - bits)) & 31]);
        }
        return sb.toString();
    }

    /** A short prefix for thread names and logs. */
    public String shortForm() {
        return text.length() <= 8 ? text : text.substring(0, 8);
    }

    @Override
    public int compareTo(NodeId o) {
        return text.compareTo(o.text);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeId other && other.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }
}
