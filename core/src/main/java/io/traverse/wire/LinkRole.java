package io.traverse.wire;

/** What the dialer of a link is, as its preamble and HELLO say. */
public enum LinkRole {
    NODE(1),
    HUB(2);

    private final int code;

    LinkRole(int code) {
        this.code = code;
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
