package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.DefaultByteBufHolder;
import io.netty.buffer.Unpooled;
import io.traverse.identity.NodeId;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One frame of a virtual connection relayed by hubs (the routed module, paper §3.3.3). The
 * connection is named by the opener's id and a connection id the opener chose (unique among its
 * own connections), together with the acceptor's id; hubs route each frame by its destination
 * node alone; the hubs of its ends keep a small entry per connection for their admission limits
 * (an OPEN beyond one is answered with a RESET whose reason starts with OVERLOAD) and for the
 * credit they pass on. Flow control is end to end: a node sends DATA only
 * within the credit the other node granted (OPEN, ACCEPT, CREDIT), so the bytes of one connection
 * inside the hub network never exceed what its receiver offered to buffer; the receiver's hub may
 * pass on less ({@link #withCredit}).
 *
 * <p>Payload by kind: OPEN u16 virtual port (1–65,535) and u32 initial credit, optionally u8 flags
 * (bit 0: hold the accepted connection until CONFIRM; bit 1: sealed, the key agreement's offer
 * follows); CONFIRM nothing; ACCEPT u32 initial credit, then the agreement's answer on a sealed
 * connection; SEALED as DATA, its bytes AES-GCM ciphertext and a 16-byte tag; REFUSE u8 answer code (as the identity handshake's) and a UTF-8 reason; RESET a UTF-8
 * reason (reasons at most {@link LinkLimits#MAX_REASON} bytes); DATA u64 stream offset of its
 * first byte, then 1 or more bytes (at most {@link #MAX_DATA_BYTES}); CREDIT and PONG u64 credit
 * limit (the stream offset up to which the other end may send); FIN u64 final stream length;
 * PING nothing. Offsets and limits count bytes from the connection's start in one direction, so a
 * frame lost on the way (a hub died with it queued) is noticed rather than leaving a gap, and a
 * later CREDIT or PONG makes up for a lost one. OPEN and CONFIRM only travel toward the acceptor,
 * ACCEPT and REFUSE only toward the opener.
 *
 * <p>The payload is a reference-counted buffer, so that DATA passes through a hub as a slice of
 * the bytes it read, never copied: whoever holds a frame releases it or passes it on (sending it on
 * a channel passes it on). {@link #forwarded()} and the answers built from a frame do not take over
 * its reference.
 */
public final class Relay extends DefaultByteBufHolder implements LinkMessage {
    /** OPEN flags bit: hold the accepted connection until CONFIRM. */
    static final int OPEN_HOLD = 1;
    /** OPEN flags bit: sealed end to end; the key agreement's offer follows the flags. */
    static final int OPEN_SEALED = 2;

    /** Size of a DATA frame's stream offset. */
    public static final int DATA_OFFSET_LENGTH = 8;
    /** Stream bytes one DATA frame carries at most. */
    public static final int MAX_DATA_BYTES = LinkLimits.MAX_RELAY_PAYLOAD - DATA_OFFSET_LENGTH;
    /** What a SEALED frame carries beyond its stream bytes (AES-GCM's tag). */
    public static final int SEAL_OVERHEAD = io.traverse.security.ConnectionSeal.OVERHEAD;
    /** Stream bytes one SEALED frame carries at most. */
    public static final int MAX_SEALED_BYTES = MAX_DATA_BYTES - SEAL_OVERHEAD;

    private final long connectionId;
    private final NodeId opener;
    private final NodeId acceptor;
    private final RelayDirection direction;
    private final int hopsLeft;
    private final RelayKind kind;

    /** A frame holding {@code payload} (this frame takes over its reference, also when the arguments are refused). */
    public Relay(
            long connectionId,
            NodeId opener,
            NodeId acceptor,
            RelayDirection direction,
            int hopsLeft,
            RelayKind kind,
            ByteBuf payload) {
        super(payload);
        try {
            FieldChecks.present("opener", opener);
            FieldChecks.present("acceptor", acceptor);
            FieldChecks.present("direction", direction);
            FieldChecks.range("hops left", hopsLeft, 0, 255);
            FieldChecks.present("kind", kind);
            if (payload.readableBytes() > LinkLimits.MAX_RELAY_PAYLOAD) {
                throw new IllegalArgumentException("payload of " + payload.readableBytes()
                        + " bytes exceeds the maximum of " + LinkLimits.MAX_RELAY_PAYLOAD);
            }
            checkPayload(kind, direction, payload);
        } catch (RuntimeException e) {
            payload.release();
            throw e;
        }
        this.connectionId = connectionId;
        this.opener = opener;
        this.acceptor = acceptor;
        this.direction = direction;
        this.hopsLeft = hopsLeft;
        this.kind = kind;
    }

    /** A frame with a payload copied from {@code payload}. */
    public Relay(
            long connectionId,
            NodeId opener,
            NodeId acceptor,
            RelayDirection direction,
            int hopsLeft,
            RelayKind kind,
            byte[] payload) {
        this(
                connectionId,
                opener,
                acceptor,
                direction,
                hopsLeft,
                kind,
                Unpooled.wrappedBuffer(Objects.requireNonNull(payload)));
    }

    private static void checkPayload(RelayKind kind, RelayDirection direction, ByteBuf payload) {
        int at = payload.readerIndex();
        switch (kind) {
            case OPEN -> {
                requireDirection(kind, direction, RelayDirection.TOWARD_ACCEPTOR);
                if (payload.readableBytes() < 7) {
                    requireLength(kind, payload, 6);
                } else {
                    int flags = payload.getUnsignedByte(at + 6);
                    if ((flags & ~(OPEN_HOLD | OPEN_SEALED)) != 0) {
                        throw new IllegalArgumentException("OPEN flags " + flags + " (only bits 0 and 1 are defined)");
                    }
                    if ((flags & OPEN_SEALED) == 0) {
                        requireLength(kind, payload, 7);
                    } else if (payload.readableBytes() == 7) {
                        throw new IllegalArgumentException("a sealed OPEN without the key agreement's offer");
                    }
                }
                if (payload.getUnsignedShort(at) == 0) {
                    throw new IllegalArgumentException("OPEN to virtual port 0");
                }
            }
            case ACCEPT -> {
                requireDirection(kind, direction, RelayDirection.TOWARD_OPENER);
                if (payload.readableBytes() < 4) {
                    requireLength(kind, payload, 4);
                }
            }
            case REFUSE -> {
                requireDirection(kind, direction, RelayDirection.TOWARD_OPENER);
                if (payload.readableBytes() < 1) {
                    throw new IllegalArgumentException("REFUSE without an answer code");
                }
                requireReason(kind, payload.slice(at + 1, payload.readableBytes() - 1));
            }
            case RESET -> requireReason(kind, payload);
            case DATA -> {
                if (payload.readableBytes() <= DATA_OFFSET_LENGTH) {
                    throw new IllegalArgumentException("DATA without bytes");
                }
                requireOffset(kind, payload.getLong(at));
            }
            case SEALED -> {
                if (payload.readableBytes() <= DATA_OFFSET_LENGTH + SEAL_OVERHEAD) {
                    throw new IllegalArgumentException(
                            "SEALED without bytes (a tag of " + SEAL_OVERHEAD + " and more)");
                }
                requireOffset(kind, payload.getLong(at));
            }
            case CREDIT, PONG, FIN -> {
                requireLength(kind, payload, 8);
                requireOffset(kind, payload.getLong(at));
            }
            case PING -> requireLength(kind, payload, 0);
            case CONFIRM -> {
                requireDirection(kind, direction, RelayDirection.TOWARD_ACCEPTOR);
                requireLength(kind, payload, 0);
            }
        }
    }

    private static void requireDirection(RelayKind kind, RelayDirection actual, RelayDirection required) {
        if (actual != required) {
            throw new IllegalArgumentException(kind + " travels " + required + ", not " + actual);
        }
    }

    private static void requireLength(RelayKind kind, ByteBuf payload, int length) {
        if (payload.readableBytes() != length) {
            throw new IllegalArgumentException(
                    kind + " payload must be " + length + " bytes, not " + payload.readableBytes());
        }
    }

    private static void requireOffset(RelayKind kind, long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException(
                    kind + " stream offset " + Long.toUnsignedString(offset) + " is beyond 2^63-1");
        }
    }

    private static void requireReason(RelayKind kind, ByteBuf reason) {
        if (reason.readableBytes() > LinkLimits.MAX_REASON) {
            throw new IllegalArgumentException(
                    kind + " reason of " + reason.readableBytes() + " bytes exceeds " + LinkLimits.MAX_REASON);
        }
        try {
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(reason.nioBuffer());
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(kind + " reason is not valid UTF-8");
        }
    }

    /** The opener's request to connect to a virtual port of the acceptor, granting it {@code initialCredit} bytes. */
    public static Relay open(long connectionId, NodeId opener, NodeId acceptor, int virtualPort, long initialCredit) {
        return open(connectionId, opener, acceptor, virtualPort, initialCredit, false);
    }

    /**
     * The same, and with {@code hold} the acceptor keeps the accepted connection out of its
     * backlog until a CONFIRM (the flags byte is sent only when set, so an OPEN without it is as before).
     */
    public static Relay open(
            long connectionId, NodeId opener, NodeId acceptor, int virtualPort, long initialCredit, boolean hold) {
        return open(connectionId, opener, acceptor, virtualPort, initialCredit, hold, null);
    }

    /**
     * The same, sealed end to end when {@code sealOffer} (the key agreement's offer, not empty) is
     * given; null: in clear.
     */
    public static Relay open(
            long connectionId,
            NodeId opener,
            NodeId acceptor,
            int virtualPort,
            long initialCredit,
            boolean hold,
            byte[] sealOffer) {
        FieldChecks.range("virtual port", virtualPort, 1, 65535);
        int flags = (hold ? OPEN_HOLD : 0) | (sealOffer != null ? OPEN_SEALED : 0);
        ByteBuf payload = Unpooled.buffer(6 + (flags != 0 ? 1 : 0) + (sealOffer != null ? sealOffer.length : 0))
                .writeShort(virtualPort)
                .writeInt(u32("initial credit", initialCredit));
        if (flags != 0) {
            payload.writeByte(flags);
        }
        if (sealOffer != null) {
            payload.writeBytes(sealOffer);
        }
        return withFullHops(connectionId, opener, acceptor, RelayDirection.TOWARD_ACCEPTOR, RelayKind.OPEN, payload);
    }

    /** The acceptor's answer to this OPEN: accepted, granting the opener {@code initialCredit} bytes. */
    public Relay accept(long initialCredit) {
        return accept(initialCredit, null);
    }

    /** The same, with the key agreement's answer when the OPEN was sealed (null: none). */
    public Relay accept(long initialCredit, byte[] sealAnswer) {
        ByteBuf payload = Unpooled.buffer(4 + (sealAnswer == null ? 0 : sealAnswer.length))
                .writeInt(u32("initial credit", initialCredit));
        if (sealAnswer != null) {
            payload.writeBytes(sealAnswer);
        }
        return answer(RelayKind.ACCEPT, payload);
    }

    /** The acceptor's refusal of this OPEN with an identity-handshake answer code; the reason is cut to fit. */
    public Relay refuse(int answerCode, String reason) {
        FieldChecks.range("answer code", answerCode, 0, 255);
        byte[] text = reasonBytes(reason);
        return answer(
                RelayKind.REFUSE,
                Unpooled.buffer(1 + text.length).writeByte(answerCode).writeBytes(text));
    }

    /** A frame of this connection from the given end's side (the opener sends toward the acceptor). */
    public static Relay frame(
            long connectionId,
            NodeId opener,
            NodeId acceptor,
            RelayDirection direction,
            RelayKind kind,
            byte[] payload) {
        return new Relay(connectionId, opener, acceptor, direction, LinkLimits.DEFAULT_RELAY_HOPS, kind, payload);
    }

    /** DATA of this connection travelling the given way: {@code bytes} at stream offset {@code offset}, copied. */
    public static Relay data(
            long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction, long offset, byte[] bytes) {
        ByteBuf payload = Unpooled.buffer(DATA_OFFSET_LENGTH + bytes.length)
                .writeLong(offset)
                .writeBytes(bytes);
        return dataFrame(connectionId, opener, acceptor, direction, payload);
    }

    /**
     * DATA of this connection travelling the given way; {@code payload} holds the u64 stream offset
     * and the bytes, and this frame takes over its reference.
     */
    public static Relay dataFrame(
            long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction, ByteBuf payload) {
        return withFullHops(connectionId, opener, acceptor, direction, RelayKind.DATA, payload);
    }

    /**
     * SEALED of this connection travelling the given way; {@code payload} holds the u64 stream
     * offset, the ciphertext and its tag, and this frame takes over its reference.
     */
    public static Relay sealedFrame(
            long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction, ByteBuf payload) {
        return withFullHops(connectionId, opener, acceptor, direction, RelayKind.SEALED, payload);
    }

    /** A grant travelling the given way: the end it reaches may send up to stream offset {@code limit}. */
    public static Relay credit(
            long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction, long limit) {
        return withFullHops(
                connectionId,
                opener,
                acceptor,
                direction,
                RelayKind.CREDIT,
                Unpooled.buffer(8).writeLong(limit));
    }

    /** The end of one direction of this connection after {@code length} bytes (half-close). */
    public static Relay fin(long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction, long length) {
        return withFullHops(
                connectionId,
                opener,
                acceptor,
                direction,
                RelayKind.FIN,
                Unpooled.buffer(8).writeLong(length));
    }

    /** Are you there? The other end answers with a PONG. */
    public static Relay ping(long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction) {
        return withFullHops(connectionId, opener, acceptor, direction, RelayKind.PING, Unpooled.EMPTY_BUFFER);
    }

    /** A RESET of a connection travelling the given way; the reason is cut to fit. */
    public static Relay reset(
            long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction, String reason) {
        return withFullHops(
                connectionId,
                opener,
                acceptor,
                direction,
                RelayKind.RESET,
                Unpooled.wrappedBuffer(reasonBytes(reason)));
    }

    /**
     * A RESET of this connection back to the node that sent this frame (direction flipped, full hop
     * limit): what a hub answers when it cannot deliver the frame. The reason is cut to fit.
     */
    public Relay resetToSender(String reason) {
        return answer(RelayKind.RESET, Unpooled.wrappedBuffer(reasonBytes(reason)));
    }

    /** The PONG that answers this PING, repeating the answering end's credit limit. */
    public Relay pong(long limit) {
        return answer(RelayKind.PONG, Unpooled.buffer(8).writeLong(limit));
    }

    private Relay answer(RelayKind answerKind, ByteBuf answerPayload) {
        return withFullHops(connectionId, opener, acceptor, direction.reversed(), answerKind, answerPayload);
    }

    /** A new frame with the full hop limit; it takes over {@code payload}'s reference. */
    private static Relay withFullHops(
            long connectionId,
            NodeId opener,
            NodeId acceptor,
            RelayDirection direction,
            RelayKind kind,
            ByteBuf payload) {
        return new Relay(connectionId, opener, acceptor, direction, LinkLimits.DEFAULT_RELAY_HOPS, kind, payload);
    }

    /**
     * This frame one hop further on, sharing this frame's payload and reference (the hop count is
     * the only change): send the result instead of this frame, release only one of them.
     */
    public Relay forwarded() {
        if (hopsLeft == 0) {
            throw new IllegalStateException("no hops left");
        }
        return new Relay(connectionId, opener, acceptor, direction, hopsLeft - 1, kind, content());
    }

    /**
     * This frame with a copy of its payload of its own, releasing this frame's reference: a small
     * payload that waits in a queue then pins no larger buffer it was read into.
     */
    public Relay withOwnPayload() {
        return replacingPayload(content().copy());
    }

    /** This frame with {@code payload} instead (taking over its reference), releasing this frame's reference. */
    private Relay replacingPayload(ByteBuf payload) {
        Relay copy = new Relay(connectionId, opener, acceptor, direction, hopsLeft, kind, payload);
        release();
        return copy;
    }

    /**
     * This OPEN, ACCEPT, CREDIT or PONG granting {@code limit} instead, releasing this frame's
     * reference: what a hub passes on when it lets the sender have less than the receiver granted.
     */
    public Relay withCredit(long limit) {
        ByteBuf payload = content().copy();
        int at = payload.readerIndex();
        try {
            switch (kind) {
                case OPEN -> payload.setInt(at + 2, u32("credit", limit));
                case ACCEPT -> payload.setInt(at, u32("credit", limit));
                case CREDIT, PONG -> payload.setLong(at, limit);
                default -> throw new IllegalStateException("a " + kind + " relay frame grants no credit");
            }
        } catch (RuntimeException e) {
            payload.release();
            throw e;
        }
        return replacingPayload(payload);
    }

    public long connectionId() {
        return connectionId;
    }

    public NodeId opener() {
        return opener;
    }

    public NodeId acceptor() {
        return acceptor;
    }

    public RelayDirection direction() {
        return direction;
    }

    public int hopsLeft() {
        return hopsLeft;
    }

    public RelayKind kind() {
        return kind;
    }

    /** The payload (not a copy; readable bytes only). */
    public ByteBuf payload() {
        return content();
    }

    /** The payload's length in bytes. */
    public int payloadLength() {
        return content().readableBytes();
    }

    /** A copy of the payload. */
    public byte[] payloadBytes() {
        return ByteBufUtil.getBytes(content());
    }

    /** The node this frame travels to. */
    public NodeId destination() {
        return direction == RelayDirection.TOWARD_ACCEPTOR ? acceptor : opener;
    }

    /** The node that sent this frame (for a hub's RESET: the node it answers). */
    public NodeId source() {
        return direction == RelayDirection.TOWARD_ACCEPTOR ? opener : acceptor;
    }

    /** True if this OPEN asks the acceptor to hold the connection until CONFIRM. */
    public boolean holdUntilConfirmed() {
        return (openFlags() & OPEN_HOLD) != 0;
    }

    /** The key agreement's offer of a sealed OPEN, or null for one in clear. */
    public byte[] sealOffer() {
        if ((openFlags() & OPEN_SEALED) == 0) {
            return null;
        }
        ByteBuf p = content();
        return ByteBufUtil.getBytes(p, p.readerIndex() + 7, p.readableBytes() - 7);
    }

    private int openFlags() {
        requireKind(RelayKind.OPEN);
        return content().readableBytes() >= 7
                ? content().getUnsignedByte(content().readerIndex() + 6)
                : 0;
    }

    /** The key agreement's answer an ACCEPT carries (empty when it carries none). */
    public byte[] sealAnswer() {
        requireKind(RelayKind.ACCEPT);
        ByteBuf p = content();
        return ByteBufUtil.getBytes(p, p.readerIndex() + 4, p.readableBytes() - 4);
    }

    /** The virtual port of an OPEN. */
    public int virtualPort() {
        requireKind(RelayKind.OPEN);
        return content().getUnsignedShort(content().readerIndex());
    }

    /** The credit limit of an OPEN or ACCEPT (initial), CREDIT or PONG: the stream offset up to which the other end may send. */
    public long credit() {
        int at = content().readerIndex();
        return switch (kind) {
            case OPEN -> content().getUnsignedInt(at + 2);
            case ACCEPT -> content().getUnsignedInt(at);
            case CREDIT, PONG -> content().getLong(at);
            default -> throw new IllegalStateException("a " + kind + " relay frame grants no credit");
        };
    }

    /** The stream offset of a DATA or SEALED frame's first byte, or the final stream length of a FIN. */
    public long streamOffset() {
        if (kind != RelayKind.DATA && kind != RelayKind.SEALED && kind != RelayKind.FIN) {
            throw new IllegalStateException("a " + kind + " relay frame has no stream offset");
        }
        return content().getLong(content().readerIndex());
    }

    /**
     * The stream bytes of a DATA frame, or the ciphertext and tag of a SEALED one (a slice of the
     * payload, not a copy).
     */
    public ByteBuf dataBytes() {
        if (kind != RelayKind.DATA && kind != RelayKind.SEALED) {
            throw new IllegalStateException("a " + kind + " relay frame carries no stream bytes");
        }
        return content()
                .slice(content().readerIndex() + DATA_OFFSET_LENGTH, content().readableBytes() - DATA_OFFSET_LENGTH);
    }

    /** How many stream bytes a DATA or SEALED frame carries (a SEALED frame's tag is not one of them); 0 for other kinds. */
    public int streamBytes() {
        return switch (kind) {
            case DATA -> content().readableBytes() - DATA_OFFSET_LENGTH;
            case SEALED -> content().readableBytes() - DATA_OFFSET_LENGTH - SEAL_OVERHEAD;
            default -> 0;
        };
    }

    /** The identity-handshake answer code of a REFUSE. */
    public int answerCode() {
        requireKind(RelayKind.REFUSE);
        return content().getUnsignedByte(content().readerIndex());
    }

    /** The reason of a REFUSE or RESET. */
    public String reason() {
        ByteBuf p = content();
        return switch (kind) {
            case REFUSE -> p.toString(p.readerIndex() + 1, p.readableBytes() - 1, StandardCharsets.UTF_8);
            case RESET -> p.toString(StandardCharsets.UTF_8);
            default -> throw new IllegalStateException("a " + kind + " relay frame has no reason");
        };
    }

    private void requireKind(RelayKind required) {
        if (kind != required) {
            throw new IllegalStateException("a " + kind + " relay frame is not " + required);
        }
    }

    private static byte[] reasonBytes(String reason) {
        return Truncation.toUtf8Bytes(reason, LinkLimits.MAX_REASON).getBytes(StandardCharsets.UTF_8);
    }

    private static int u32(String field, long value) {
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(field + " " + value + " is not a u32");
        }
        return (int) value;
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.RELAY;
    }

    @Override
    public Relay retain() {
        super.retain();
        return this;
    }

    @Override
    public Relay touch(Object hint) {
        super.touch(hint);
        return this;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Relay m
                && m.connectionId == connectionId
                && m.opener.equals(opener)
                && m.acceptor.equals(acceptor)
                && m.direction == direction
                && m.hopsLeft == hopsLeft
                && m.kind == kind
                && ByteBufUtil.equals(m.content(), content());
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                connectionId,
                opener,
                acceptor,
                direction,
                hopsLeft,
                kind,
                content().readableBytes());
    }

    @Override
    public String toString() {
        String tail =
                kind == RelayKind.REFUSE || kind == RelayKind.RESET ? "'" + reason() + "'" : payloadLength() + " bytes";
        return "Relay[" + Long.toUnsignedString(connectionId) + " " + opener + " => " + acceptor + ", " + kind + " "
                + direction + ", hops " + hopsLeft + ", " + tail + "]";
    }
}
