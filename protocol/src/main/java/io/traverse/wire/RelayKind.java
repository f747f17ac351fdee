package io.traverse.wire;

/** What a {@link Relay} frame does to its virtual connection. */
public enum RelayKind {
    /**
     * Opener → acceptor: connect to a virtual port; payload u16 virtual port, u32 initial credit,
     * optionally u8 flags (bit 0: hold the accepted connection out of the backlog until CONFIRM;
     * bit 1: sealed end to end, the key agreement's offer follows).
     */
    OPEN(1),
    /**
     * Acceptor → opener: the connection is in the port's backlog; payload u32 initial credit, then
     * the key agreement's answer when the OPEN was sealed.
     */
    ACCEPT(2),
    /** Acceptor → opener: no connection (no such port, refused, overload); payload u8 answer code, UTF-8 reason. */
    REFUSE(3),
    /** Either way: stream bytes; the sender may send only as many as the receiver granted. */
    DATA(4),
    /**
     * Either way: the receiver consumed bytes and grants more; payload u64 credit limit, the stream
     * offset up to which the other end may send.
     */
    CREDIT(5),
    /** Either way: the sender will send no more data (half-close); payload u64 final stream length. */
    FIN(6),
    /** Either way, or from a hub that could not deliver a frame: the connection is gone; payload a UTF-8 reason. */
    RESET(7),
    /** Either way: are you there? The other end answers PONG (a connection silent for a while asks). */
    PING(8),
    /** Either way: the answer to a PING. */
    PONG(9),
    /**
     * Opener → acceptor: the connection an OPEN asked to hold (another attempt of the same connect
     * was running) won; the acceptor now hands it to its application. Empty payload.
     */
    CONFIRM(10),
    /**
     * Either way, on a sealed connection: stream bytes encrypted end to end; payload u64 stream
     * offset of the first byte, then the AES-GCM ciphertext of 1 or more stream bytes and its
     * 16-byte tag. Counted like DATA (credit and offsets are in stream bytes).
     */
    SEALED(11);

    private final int code;

    RelayKind(int code) {
        this.code = code;
    }

    /** The value on the wire. */
    public int code() {
        return code;
    }

    /** @throws IllegalArgumentException for a code no constant has */
    public static RelayKind ofCode(int code) {
        for (RelayKind value : values()) {
            if (value.code == code) {
                return value;
            }
        }
        throw new IllegalArgumentException("unknown RelayKind code " + code);
    }
}
