package io.traverse.wire;

/** Which end of a relayed connection a {@link Relay} frame travels to. */
public enum RelayDirection {
    /** From the opener to the acceptor. */
    TOWARD_ACCEPTOR(0),
    /** From the acceptor back to the opener. */
    TOWARD_OPENER(1);

    private final int code;

    RelayDirection(int code) {
        this.code = code;
    }

    /** The value on the wire. */
    public int code() {
        return code;
    }

    /** The other way. */
    public RelayDirection reversed() {
        return this == TOWARD_ACCEPTOR ? TOWARD_OPENER : TOWARD_ACCEPTOR;
    }

    /** @throws IllegalArgumentException for a code no constant has */
    public static RelayDirection ofCode(int code) {
        for (RelayDirection value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown RelayDirection code " + code);
    }
}
