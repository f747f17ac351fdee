package io.traverse.wire;

/** Why a side-channel request failed (first payload byte of an ERROR side message). */
public enum SideMessageError {
    /** The target node's hub is not reachable in the hub graph. */
    NO_ROUTE(1),
    /** No hub knows the target node. */
    UNKNOWN_NODE(2),
    /** The message was forwarded too often (a routing loop or a very long path). */
    HOP_LIMIT(3),
    /** The target node has no handler for the service. */
    NO_SERVICE(4),
    /** Too many requests of the sender are pending, or a queue is full. */
    OVERLOAD(5),
    /** The target's handler failed. */
    HANDLER_FAILED(6);

    private final int code;

    SideMessageError(int code) {
        this.code = code;
    }

    /** The value on the wire. */
    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for a code no constant has */
    public static SideMessageError ofCode(int code) {
        for (SideMessageError value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown SideMessageError code " + code);
    }
}
