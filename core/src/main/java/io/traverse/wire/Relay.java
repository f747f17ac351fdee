package io.traverse.wire;

import io.traverse.identity.NodeId;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * One frame of a virtual connection relayed by hubs (the routed module, paper §3.3.3). The
 * connection is named by the opener's id and a connection id the opener chose (unique among its
 * own connections), together with the acceptor's id; hubs route each frame by its destination
 * node alone and keep no state per connection. Flow control is end to end: a node sends DATA only
 * within the credit the other node granted (OPEN, ACCEPT, CREDIT), so the bytes of one connection
 * inside the hub network never exceed what its receiver offered to buffer.
 *
 * <p>Payload by kind: OPEN u16 virtual port (1–65,535) and u32 initial credit; ACCEPT u32 initial
 * credit; CREDIT u32 bytes (at least 1); REFUSE and RESET a UTF-8 reason of at most
 * {@link LinkLimits#MAX_REASON} bytes; DATA 1 to {@link LinkLimits#MAX_RELAY_PAYLOAD} bytes;
 * FIN nothing. OPEN only travels toward the acceptor, ACCEPT and REFUSE only toward the opener.
 */
public record Relay(long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction, int hopsLeft, RelayKind kind,
        byte[] payload) implements LinkMessage {
    public Relay {
        FieldChecks.present("opener", opener);
        FieldChecks.present("acceptor", acceptor);
        FieldChecks.present("direction", direction);
        FieldChecks.range("hops left", hopsLeft, 0, 255);
        FieldChecks.present("kind", kind);
        FieldChecks.bytes("payload", payload, LinkLimits.MAX_RELAY_PAYLOAD);
        checkPayload(kind, direction, payload);
    }

    private static void checkPayload(RelayKind kind, RelayDirection direction, byte[] payload) {
        switch (kind) {
            case OPEN -> {
                requireDirection(kind, direction, RelayDirection.TOWARD_ACCEPTOR);
                requireLength(kind, payload, 6);
                if (((payload[0] & 0xff) << 8 | (payload[1] & 0xff)) == 0) {
                    throw new IllegalArgumentException("OPEN to virtual port 0");
                }
            }
            case ACCEPT -> {
                requireDirection(kind, direction, RelayDirection.TOWARD_OPENER);
                requireLength(kind, payload, 4);
            }
            case REFUSE -> {
                requireDirection(kind, direction, RelayDirection.TOWARD_OPENER);
                requireReason(kind, payload);
            }
            case RESET -> requireReason(kind, payload);
            case DATA -> {
                if (payload.length == 0) {
                    throw new IllegalArgumentException("DATA without bytes");
                }
            }
            case CREDIT -> {
                requireLength(kind, payload, 4);
                if (ByteBuffer.wrap(payload).getInt() == 0) {
                    throw new IllegalArgumentException("CREDIT of 0 bytes");
                }
            }
            case FIN -> requireLength(kind, payload, 0);
        }
    }

    private static void requireDirection(RelayKind kind, RelayDirection actual, RelayDirection required) {
        if (actual != required) {
            throw new IllegalArgumentException(kind + " travels " + required + ", not " + actual);
        }
    }

    private static void requireLength(RelayKind kind, byte[] payload, int length) {
        if (payload.length != length) {
            throw new IllegalArgumentException(kind + " payload must be " + length + " bytes, not " + payload.length);
        }
    }

    private static void requireReason(RelayKind kind, byte[] payload) {
        if (payload.length > LinkLimits.MAX_REASON) {
            throw new IllegalArgumentException(kind + " reason of " + payload.length + " bytes exceeds " + LinkLimits.MAX_REASON);
        }
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(payload));
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(kind + " reason is not valid UTF-8");
        }
    }

    /** The opener's request to connect to a virtual port of the acceptor, granting it {@code initialCredit} bytes. */
    public static Relay open(long connectionId, NodeId opener, NodeId acceptor, int virtualPort, long initialCredit) {
        FieldChecks.range("virtual port", virtualPort, 1, 65535);
        byte[] payload = ByteBuffer.allocate(6).putShort((short) virtualPort).putInt(u32("initial credit", initialCredit)).array();
        return new Relay(connectionId, opener, acceptor, RelayDirection.TOWARD_ACCEPTOR, LinkLimits.DEFAULT_RELAY_HOPS,
                RelayKind.OPEN, payload);
    }

    /** The acceptor's answer to this OPEN: accepted, granting the opener {@code initialCredit} bytes. */
    public Relay accept(long initialCredit) {
        return answer(RelayKind.ACCEPT, ByteBuffer.allocate(4).putInt(u32("initial credit", initialCredit)).array());
    }

    /** The acceptor's refusal of this OPEN; the reason is cut to fit. */
    public Relay refuse(String reason) {
        return answer(RelayKind.REFUSE, reasonBytes(reason));
    }

    /** A frame of this connection from the given end's side (the opener sends toward the acceptor). */
    public static Relay frame(long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction, RelayKind kind,
            byte[] payload) {
        return new Relay(connectionId, opener, acceptor, direction, LinkLimits.DEFAULT_RELAY_HOPS, kind, payload);
    }

    /** DATA of this connection travelling the given way. */
    public static Relay data(long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction, byte[] bytes) {
        return frame(connectionId, opener, acceptor, direction, RelayKind.DATA, bytes);
    }

    /** A grant of {@code bytes} more credit, travelling the given way (to the end that may now send them). */
    public static Relay credit(long connectionId, NodeId opener, NodeId acceptor, RelayDirection direction, long bytes) {
        return frame(connectionId, opener, acceptor, direction, RelayKind.CREDIT,
                ByteBuffer.allocate(4).putInt(u32("credit", bytes)).array());
    }

    /**
     * A RESET of this connection back to the node that sent this frame (direction flipped, full hop
     * limit): what a hub answers when it cannot deliver the frame. The reason is cut to fit.
     */
    public Relay resetToSender(String reason) {
        return answer(RelayKind.RESET, reasonBytes(reason));
    }

    private Relay answer(RelayKind answerKind, byte[] answerPayload) {
        return new Relay(connectionId, opener, acceptor, direction.reversed(), LinkLimits.DEFAULT_RELAY_HOPS, answerKind,
                answerPayload);
    }

    /** This frame one hop further on. */
    public Relay forwarded() {
        if (hopsLeft == 0) {
            throw new IllegalStateException("no hops left");
        }
        return new Relay(connectionId, opener, acceptor, direction, hopsLeft - 1, kind, payload);
    }

    /** The node this frame travels to. */
    public NodeId destination() {
        return direction == RelayDirection.TOWARD_ACCEPTOR ? acceptor : opener;
    }

    /** The node that sent this frame (for a hub's RESET: the node it answers). */
    public NodeId source() {
        return direction == RelayDirection.TOWARD_ACCEPTOR ? opener : acceptor;
    }

    /** The virtual port of an OPEN. */
    public int virtualPort() {
        requireKind(RelayKind.OPEN);
        return (payload[0] & 0xff) << 8 | (payload[1] & 0xff);
    }

    /** The initial credit of an OPEN or ACCEPT, or the bytes granted by a CREDIT. */
    public long credit() {
        return switch (kind) {
            case OPEN -> Integer.toUnsignedLong(ByteBuffer.wrap(payload, 2, 4).getInt());
            case ACCEPT, CREDIT -> Integer.toUnsignedLong(ByteBuffer.wrap(payload).getInt());
            default -> throw new IllegalStateException("a " + kind + " relay frame grants no credit");
        };
    }

    /** The reason of a REFUSE or RESET. */
    public String reason() {
        if (kind != RelayKind.REFUSE && kind != RelayKind.RESET) {
            throw new IllegalStateException("a " + kind + " relay frame has no reason");
        }
        return new String(payload, StandardCharsets.UTF_8);
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
    public boolean equals(Object o) {
        return o instanceof Relay m && m.connectionId == connectionId && m.opener.equals(opener) && m.acceptor.equals(acceptor)
                && m.direction == direction && m.hopsLeft == hopsLeft && m.kind == kind && Arrays.equals(m.payload, payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(connectionId, opener, acceptor, direction, hopsLeft, kind, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        String tail = kind == RelayKind.REFUSE || kind == RelayKind.RESET ? "'" + reason() + "'" : payload.length + " bytes";
        return "Relay[" + Long.toUnsignedString(connectionId) + " " + opener + " => " + acceptor + ", " + kind + " " + direction
                + ", hops " + hopsLeft + ", " + tail + "]";
    }
}
