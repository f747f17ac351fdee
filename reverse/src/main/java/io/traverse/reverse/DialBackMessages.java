package io.traverse.reverse;

import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.ProtocolException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The two side-channel messages of the reverse module (service {@value #SERVICE}; the same
 * messages under {@value #PROBE_SERVICE} ask for a dial-back that only proves the path: the
 * target dials and completes the handshake, then closes instead of handing the connection to its
 * application).
 *
 * <pre>
 * request: version u8 (5) | flags u8 | token 16 bytes | virtual port u16 | time left ms u32 | dialler identity: rest, ASCII
 * answer:  status u8 | reason: rest, UTF-8
 * </pre>
 * Since version 2 a dial-back for a connection (not a probe) is held by the target after
 * CONNECTED until the dialler sends {@link IdentityHandshake#CONFIRM} on it (it won its race), and
 * dropped unseen if the dialler closes it instead. Since version 3 the target takes its backlog
 * slot once its TCP connection to the dialler is up, before its handshake goes out, so the dialler
 * uses the connection when the handshake arrives and does not wait for CONNECTED. Since version 4
 * the hold is asked for ({@link #HELD}) only when the dialler's connect has a rival; a request without
 * it is handed to the target's application as soon as its handshake is accepted. Since version 5 the
 * target's REVERSE handshake carries a {@link io.traverse.protocol.DialBackProof} of the token, not
 * the token: a target of an earlier version would send the token in clear, and a dialler of this
 * version would refuse it, so each answers the other's version BAD_REQUEST and the chain moves on.
 */
final class DialBackMessages {
    static final String SERVICE = "traverse.reverse";
    static final String PROBE_SERVICE = "traverse.reverse.probe";
    static final int VERSION = 5;
    /** Flag: hold the connection out of the backlog until the dialler confirms it. */
    static final int HELD = 0x01;
    /** The longest reason an answer carries, cut on a character boundary. */
    static final int MAX_REASON_BYTES = 1024;

    /** What the asked node did. */
    enum Status {
        /** It dialled back and the connection is in its virtual port's backlog. */
        CONNECTED,
        /** Nothing listens on the virtual port, or its backlog is full: definitive, like a direct answer. */
        TARGET_ANSWER,
        /** It could not reach the asking node: this module cannot help, others may. */
        UNREACHABLE,
        /** The request made no sense to it (another version, malformed, another node's identity). */
        BAD_REQUEST;

        static Status of(int code) throws ProtocolException {
            if (code < 0 || code >= values().length) {
                throw new ProtocolException("unknown dial-back status " + code);
            }
            return values()[code];
        }
    }

    /** @param held hold the connection until {@link IdentityHandshake#CONFIRM} (the dialler's connect has rivals) */
    record Request(byte[] token, int virtualPort, long millisLeft, String diallerIdentity, boolean held) {}

    record Answer(Status status, String reason) {}

    private DialBackMessages() {}

    static byte[] encode(Request r) {
        byte[] identity = r.diallerIdentity().getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(2 + IdentityHandshake.TOKEN_LENGTH + 2 + 4 + identity.length)
                .put((byte) VERSION)
                .put((byte) (r.held() ? HELD : 0))
                .put(r.token())
                .putShort((short) r.virtualPort())
                .putInt((int) Math.min(r.millisLeft(), 0xFFFF_FFFFL))
                .put(identity)
                .array();
    }

    static Request decodeRequest(byte[] bytes) throws ProtocolException {
        try {
            ByteBuffer in = ByteBuffer.wrap(bytes);
            int version = in.get() & 0xff;
            if (version != VERSION) {
                throw new ProtocolException(
                        "dial-back request version " + version + " (this node speaks " + VERSION + ")");
            }
            int flags = in.get() & 0xff;
            if ((flags & ~HELD) != 0) {
                throw new ProtocolException("dial-back request flags " + flags + " (this node knows " + HELD + ")");
            }
            boolean held = (flags & HELD) != 0;
            byte[] token = new byte[IdentityHandshake.TOKEN_LENGTH];
            in.get(token);
            int port = in.getShort() & 0xffff;
            if (port == 0) {
                throw new ProtocolException("virtual port 0 is not a port");
            }
            long millisLeft = in.getInt() & 0xFFFF_FFFFL;
            byte[] identity = new byte[in.remaining()];
            in.get(identity);
            return new Request(token, port, millisLeft, new String(identity, StandardCharsets.US_ASCII), held);
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("dial-back request of " + bytes.length + " bytes is truncated");
        }
    }

    static byte[] encode(Answer a) {
        byte[] reason = a.reason().getBytes(StandardCharsets.UTF_8);
        int length = utf8Prefix(reason, MAX_REASON_BYTES);
        return ByteBuffer.allocate(1 + length)
                .put((byte) a.status().ordinal())
                .put(reason, 0, length)
                .array();
    }

    /** The length of the longest prefix of at most {@code max} bytes that ends on a character boundary. */
    private static int utf8Prefix(byte[] utf8, int max) {
        if (utf8.length <= max) {
            return utf8.length;
        }
        int end = max;
        while (end > 0 && (utf8[end] & 0xc0) == 0x80) { // a continuation byte: the character began earlier
            end--;
        }
        return end;
    }

    static Answer decodeAnswer(byte[] bytes) throws ProtocolException {
        if (bytes.length == 0) {
            throw new ProtocolException("empty dial-back answer");
        }
        return new Answer(Status.of(bytes[0] & 0xff), new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8));
    }
}
