package io.traverse.wire;

/** Why an acceptor refuses a link (REJECT frame); the link is closed after it. */
public enum RejectCode {
    /** The dialer speaks a link protocol version the acceptor does not. */
    VERSION(1),
    /** The proof of the network token is wrong. */
    AUTH(2),
    /** Malformed input: bad lengths, fields, unknown or unexpected frames. */
    PROTOCOL(3),
    /** A node or hub with this id already has a live link. */
    DUPLICATE_ID(4),
    /**
     * Too many nodes, names or pending requests, or new links faster than the hub's link rate;
     * for an admission limit the reason starts with {@code OVERLOAD: } and names the limit's key.
     */
    LIMIT(5),
    /** The hub is closing. */
    SHUTTING_DOWN(6),
    /** Both hubs dialled each other; this link is the one that gives way. */
    DUPLICATE_LINK(7);

    private final int code;

    RejectCode(int code) {
        this.code = code;
    }

    /** The value on the wire. */
    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for a code no constant has */
    public static RejectCode ofCode(int code) {
        for (RejectCode value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown RejectCode code " + code);
    }
}
