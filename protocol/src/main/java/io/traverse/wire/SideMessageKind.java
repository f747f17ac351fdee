package io.traverse.wire;

/** The role of a side message in a request/answer exchange. */
public enum SideMessageKind {
    /** Asks the target node's service for an answer. */
    REQUEST(1),
    /** The target's answer; carries the request's message id. */
    REPLY(2),
    /** The request could not be delivered or served; payload is an error code and a reason. */
    ERROR(3);

    private final int code;

    SideMessageKind(int code) {
        this.code = code;
    }

    /** The value on the wire. */
    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for a code no constant has */
    public static SideMessageKind ofCode(int code) {
        for (SideMessageKind value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown SideMessageKind code " + code);
    }
}
