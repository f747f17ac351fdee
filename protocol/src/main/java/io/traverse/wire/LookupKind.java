package io.traverse.wire;

/** What a LOOKUP asks; the entry formats are in docs/protocol.md. */
public enum LookupKind {
    /** A registered name to its virtual address text. */
    NAME(1),
    /** A node id to its hub id and that hub's link addresses. */
    NODE(2),
    /** Every known hub. */
    HUBS(3),
    /** Every hub-to-hub link listed by both ends. */
    LINKS(4),
    /** Every node of the hub network. */
    NODES(5),
    /** Every registered name. */
    NAMES(6);

    private final int code;

    LookupKind(int code) {
        this.code = code;
    }

    /** The value on the wire. */
    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for a code no constant has */
    public static LookupKind ofCode(int code) {
        for (LookupKind value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown LookupKind code " + code);
    }
}
