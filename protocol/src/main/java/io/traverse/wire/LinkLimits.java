package io.traverse.wire;

/**
 * Every size limit of the hub link protocol in one place. Sizes of texts are in UTF-8 bytes.
 * A decoder checks a declared length against these before it allocates anything.
 */
public final class LinkLimits {
    /**
     * Largest frame (type byte plus payload) before authentication: a stranger cannot make us
     * buffer more. 8 KiB rather than 4 so that a HELLO carrying the longest identity text (4,096
     * characters) still fits.
     */
    public static final int MAX_FRAME_BEFORE_AUTH = 8 * 1024;
    /** Largest frame after authentication (a hub description of a busy hub is the big one). */
    public static final int MAX_FRAME_AFTER_AUTH = 1024 * 1024;
    /** Length of the client and server nonces. */
    public static final int NONCE_LENGTH = 32;
    /** Length of an HMAC-SHA256 proof. */
    public static final int MAC_LENGTH = 32;
    /** Longest node identity text (as {@code io.traverse.identity.NodeIdentity} accepts). */
    public static final int MAX_IDENTITY_TEXT = 4096;
    /** Longest node or hub id text ({@code io.traverse.identity.NodeId#MAX_LENGTH}). */
    public static final int MAX_ID = 40;
    /** Longest hub name; default names are {@code host:port}. */
    public static final int MAX_HUB_NAME = 255;
    /** Longest link address text ({@code host:port}, IPv6 literals in brackets). */
    public static final int MAX_LINK_ADDRESS = 262;
    /** Most link addresses a hub may advertise. */
    public static final int MAX_LINK_ADDRESSES = 16;
    /** Longest registered name (a DNS name's limit: names must survive URLs). */
    public static final int MAX_NAME = 253;
    /** Longest reason or status message. */
    public static final int MAX_REASON = 1024;
    /** Longest lookup argument. */
    public static final int MAX_LOOKUP_ARGUMENT = 4096;
    /** Longest single entry of a lookup result. */
    public static final int MAX_LOOKUP_ENTRY = 8192;
    /** Longest side-channel service name. */
    public static final int MAX_SERVICE = 64;
    /** Largest side-channel payload. */
    public static final int MAX_SIDE_PAYLOAD = 16 * 1024;
    /** Hop limit a node starts a side message with. */
    public static final int DEFAULT_SIDE_HOPS = 16;
    /**
     * Largest RELAY payload: a DATA frame's 8-byte stream offset and up to 128 KiB of stream bytes
     * (a 64 KiB application write is one frame).
     */
    public static final int MAX_RELAY_PAYLOAD = 8 + 128 * 1024;
    /** Hop limit a node starts a relay frame with (a hub's RESET starts with it too). */
    public static final int DEFAULT_RELAY_HOPS = 16;
    /** Longest list (a u16 count). */
    public static final int MAX_LIST = 0xFFFF;
    /** Keepalive intervals a WELCOME may announce, in milliseconds. */
    public static final int MIN_KEEPALIVE_MILLIS = 10;

    public static final int MAX_KEEPALIVE_MILLIS = 600_000;

    private LinkLimits() {}
}
