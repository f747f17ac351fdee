package io.traverse.wire;

/** Outcome of a node's request (RESULT and LOOKUP_RESULT frames). */
public enum ResultStatus {
    /** Done. */
    OK(0),
    /** Nothing known under that name, node or kind. */
    NOT_FOUND(1),
    /** Another live node holds the name. */
    NAME_TAKEN(2),
    /** The argument is malformed (a name that is not hostname-safe, a bad port). */
    INVALID(3),
    /** A per-node limit (names, pending requests) is reached. */
    LIMIT(4),
    /** The name belongs to another node. */
    NOT_OWNER(5),
    /** A listing was cut short to fit one frame. */
    PARTIAL(6),
    /** The hub is shutting down. */
    UNAVAILABLE(7);

    private final int code;

    ResultStatus(int code) {
        this.code = code;
    }

    /** The value on the wire. */
    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for a code no constant has */
    public static ResultStatus ofCode(int code) {
        for (ResultStatus value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown ResultStatus code " + code);
    }
}
