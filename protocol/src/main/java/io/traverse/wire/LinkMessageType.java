package io.traverse.wire;

/** The type byte of a frame. */
public enum LinkMessageType {
    HELLO(1),
    CHALLENGE(2),
    AUTH(3),
    WELCOME(4),
    REJECT(5),
    PING(6),
    PONG(7),
    NODE_UPDATE(16),
    NAME_BIND(17),
    NAME_RELEASE(18),
    LOOKUP(19),
    RESULT(20),
    LOOKUP_RESULT(21),
    DATA_LINK_SWITCH(22),
    SIDE_MESSAGE(32),
    RELAY(34),
    GOSSIP(48),
    GOSSIP_DIGEST(49),
    GOSSIP_SUMMARY(50);

    private static final LinkMessageType[] BY_CODE = new LinkMessageType[256];

    static {
        for (LinkMessageType type : values()) {
            BY_CODE[type.code] = type;
        }
    }

    private final int code;

    LinkMessageType(int code) {
        this.code = code;
    }

    /** The value on the wire. */
    public int code() {
        return code;
    }

    /** The type of a code, or null if no type has it. */
    static LinkMessageType ofCodeOrNull(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
