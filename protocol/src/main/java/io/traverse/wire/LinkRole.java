package io.traverse.wire;

/**
 * What the dialer of a link is, as its preamble and HELLO say. A node's data link (RELAY frames
 * only, beside its link; docs/protocol.md) says NODE_DATA in its preamble and NODE in its HELLO.
 */
public enum LinkRole {
    NODE(1),
    HUB(2),
    NODE_DATA(3),
    ECHO(4);

    private final int code;

    LinkRole(int code) {
        this.code = code;
    }

    /** The role a HELLO on a link opened with this preamble role names. */
    public LinkRole helloRole() {
        return this == NODE_DATA ? NODE : this;
    }

    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for a code no role has */
    public static LinkRole ofCode(int code) {
        for (LinkRole role : values()) {
            if (role.code == code) {
                return role;
            }
        }
        throw new IllegalArgumentException("unknown link role " + code);
    }
}
