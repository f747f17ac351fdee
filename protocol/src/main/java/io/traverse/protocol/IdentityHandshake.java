package io.traverse.protocol;

import io.traverse.identity.NodeIdentity;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;

/**
 * The first exchange on every direct connection (paper §3.2.2): the client names the node and
 * virtual port it wants and who it is; the listener answers with its full identity and a verdict.
 * One round trip, after which the socket belongs to the application.
 *
 * <pre>
 * request: magic u32 "TRAV" | version u8 | kind u8     | body length u16 | body
 *          body = virtual port u16 | expected target: u16 length + text | source: u16 length + text (0 = anonymous)
 *                 [REVERSE only: the DialBackProof of the listener's token, 16 bytes]
 * reply:   magic u32 "TRAV" | version u8 | answer u8   | body length u16 | body
 *          body = responder: u16 length + text | reason: u16 length + UTF-8
 *          ACCEPT of a connection: no body (length 0)
 * </pre>
 * The ACCEPT that hands a connection over has no body: the listener has checked that it is the
 * node asked for (it answers WRONG_NODE otherwise), so its identity would tell the client nothing,
 * and a fixed eight bytes are read in one system call.
 * All integers are big-endian; identities are in their text form (ASCII). Every length is checked
 * against {@link #MAX_BODY_LENGTH} before anything is allocated for it. Documented in docs/protocol.md.
 *
 * <p>The top bit of the kind byte ({@link #IN_BAND_END_OF_STREAM}) asks that end-of-stream travel
 * in-band on this connection ({@code InBandEndOfStream}), because it runs through a tunnel (SSH port
 * forwarding) that does not carry TCP half-close; a listener that agrees sets the same bit in the
 * answer byte of its ACCEPT. A request without the bit is answered exactly as before.
 *
 * <p>Bit {@link #KEY_PROOF} of the kind byte proves keys: the request carries a {@code PeerSessions}
 * offer (u16 length + bytes) after its other fields, bound to the kind byte and the body before it
 * ({@link #proofContext}); the ACCEPT sets the same bit and its body is the answer (u16 length +
 * bytes); after a full agreement the client then sends {@link HandshakeProof#FINISHED_LENGTH} bytes
 * of proof, after a resumed one nothing ({@link HandshakeProof}).
 *
 * <p>Bit {@link #TLS} of the kind byte (a CONNECT or REVERSE from a named node) asks that the
 * connection run TLS 1.3 once the handshake is done (after CONFIRM and Finished), authenticated by
 * both nodes' keys ({@code traverse.encrypt=all}); an ACCEPT that agrees sets the same bit.
 */
public final class IdentityHandshake {
    /** "TRAV" in ASCII. */
    public static final int MAGIC = 0x54524156;

    public static final int VERSION = 1;
    public static final int HEADER_LENGTH = 8;
    /** Two identities of at most 4096 characters plus the fixed fields. */
    public static final int MAX_BODY_LENGTH = 10 * 1024;

    public static final int MAX_REASON_BYTES = 1024;

    /** What the client asks for. */
    public enum Kind {
        /** A connection to the virtual port. */
        CONNECT(1),
        /**
         * A connection the listener asked for (through the side channel) and waits for under a
         * token, proved by its {@link DialBackProof}; the virtual port is the dialling node's own,
         * where the connection is accepted.
         */
        REVERSE(2),
        /**
         * As CONNECT, but only to learn whether it would be accepted: the listener answers as it
         * would (ACCEPT without taking a backlog slot) and closes; nothing reaches the application.
         */
        PROBE(3);

        public final int code;

        Kind(int code) {
            this.code = code;
        }

        static Kind fromCode(int code, int sent) throws ProtocolException {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new ProtocolException("unknown handshake kind " + sent);
        }
    }

    /** The listener's verdict. */
    public enum Answer {
        /** Connected: the socket is in the virtual port's accept queue. */
        ACCEPT(0),
        /** This listener is another node than the one asked for (overlapping private addresses, stale address). */
        WRONG_NODE(1),
        /** The node is right but nothing listens on that virtual port. */
        PORT_NOT_FOUND(2),
        /** The node's (simulated) firewall refuses this source. */
        REFUSED(3),
        /** The node is too busy: accept backlog full or too many handshakes in progress. */
        OVERLOAD(4),
        /** The request was not understood: wrong magic, unsupported version, malformed fields. */
        PROTOCOL_ERROR(5),
        /**
         * The request's key proof resumed a session the listener does not keep (it restarted): the
         * client forgets the session and may try once more with a full agreement.
         */
        UNKNOWN_SESSION(6);

        public final int code;

        Answer(int code) {
            this.code = code;
        }

        static Answer fromCode(int code, int sent) throws ProtocolException {
            for (Answer a : values()) {
                if (a.code == code) {
                    return a;
                }
            }
            throw new ProtocolException("unknown handshake answer " + sent);
        }
    }

    /**
     * Set in the kind byte of a request and the answer byte of an ACCEPT: after the handshake both
     * directions carry {@code InBandEndOfStream} chunks instead of raw bytes.
     */
    public static final int IN_BAND_END_OF_STREAM = 0x80;

    /**
     * Set in the kind byte of a CONNECT: another attempt of the same connect may win, so after its
     * ACCEPT the listener holds the connection out of the backlog until the client sends
     * {@link #CONFIRM} (it won: now queue it) or closes it (it lost: drop it, nobody saw it), within
     * the handshake timeout. A client sets it only while a rival attempt runs; without it the
     * listener queues at once, as before.
     */
    public static final int HOLD_UNTIL_CONFIRMED = 0x40;

    /**
     * Set in the kind byte of a request that proves keys (a {@code PeerSessions} offer follows the
     * other fields) and in the answer byte of the ACCEPT that answers it (its body is the answer).
     */
    public static final int KEY_PROOF = 0x20;

    /**
     * Set in the kind byte of a CONNECT or REVERSE and in the answer byte of the ACCEPT that agrees:
     * once the handshake is done, both ends wrap the connection in TLS 1.3, the application's
     * connecting end as TLS client (the requester of a CONNECT, the listener of a REVERSE), each
     * proving the key of its node id. The bytes after the handshake are then TLS records.
     */
    public static final int TLS = 0x10;

    private static final int REQUEST_FLAGS = IN_BAND_END_OF_STREAM | HOLD_UNTIL_CONFIRMED | KEY_PROOF | TLS;

    /** The most bytes an offer or answer of a key proof may have (a full one has 160). */
    public static final int MAX_KEY_MESSAGE = 512;

    private static final byte[] PROOF_LABEL = "traverse handshake proof 1".getBytes(StandardCharsets.US_ASCII);

    /** The byte a client sends, right after the ACCEPT of a held request, when its attempt won. */
    public static final int CONFIRM = 0x01;

    /** Length of the token field of a REVERSE request (which carries a {@link DialBackProof}). */
    public static final int TOKEN_LENGTH = 16;

    /**
     * A client's request; {@code source} is null when the client does not say who it is;
     * {@code token} is the REVERSE request's token field, a {@link DialBackProof} (null for CONNECT); {@code inBandEndOfStream}: the client
     * asks for {@code InBandEndOfStream} framing (a tunnelled CONNECT, PROBE or dial-back REVERSE).
     */
    public record Request(
            Kind kind,
            int virtualPort,
            NodeIdentity expectedTarget,
            NodeIdentity source,
            byte[] token,
            boolean inBandEndOfStream,
            boolean holdUntilConfirmed,
            byte[] keyOffer,
            byte[] proofContext,
            boolean tls) {
        public Request {
            if (tls && (kind == Kind.PROBE || source == null || source.id().isEmpty())) {
                throw new IllegalArgumentException("only a CONNECT or REVERSE from a named node asks for TLS");
            }
            if (keyOffer != null && (keyOffer.length == 0 || keyOffer.length > MAX_KEY_MESSAGE)) {
                throw new IllegalArgumentException(
                        "a key offer of " + keyOffer.length + " bytes is not within 1-" + MAX_KEY_MESSAGE);
            }
            if (holdUntilConfirmed && kind != Kind.CONNECT) {
                throw new IllegalArgumentException("only a CONNECT is held until confirmed");
            }
            if (virtualPort < 1 || virtualPort > 65535) {
                throw new IllegalArgumentException("virtual port " + virtualPort + " is not within 1-65535");
            }
            if ((kind == Kind.REVERSE) != (token != null) || (token != null && token.length != TOKEN_LENGTH)) {
                throw new IllegalArgumentException(
                        "a REVERSE request carries a " + TOKEN_LENGTH + "-byte token, CONNECT and PROBE none");
            }
        }

        public Request(
                Kind kind,
                int virtualPort,
                NodeIdentity expectedTarget,
                NodeIdentity source,
                byte[] token,
                boolean inBandEndOfStream,
                boolean holdUntilConfirmed) {
            this(
                    kind,
                    virtualPort,
                    expectedTarget,
                    source,
                    token,
                    inBandEndOfStream,
                    holdUntilConfirmed,
                    null,
                    null,
                    false);
        }

        public Request(
                Kind kind,
                int virtualPort,
                NodeIdentity expectedTarget,
                NodeIdentity source,
                byte[] token,
                boolean inBandEndOfStream) {
            this(kind, virtualPort, expectedTarget, source, token, inBandEndOfStream, false);
        }

        public Request(Kind kind, int virtualPort, NodeIdentity expectedTarget, NodeIdentity source, byte[] token) {
            this(kind, virtualPort, expectedTarget, source, token, false, false);
        }

        public Request(Kind kind, int virtualPort, NodeIdentity expectedTarget, NodeIdentity source) {
            this(kind, virtualPort, expectedTarget, source, null, false, false);
        }

        /** The same request, held by the listener until the client confirms it ({@link #HOLD_UNTIL_CONFIRMED}). */
        public Request held() {
            return new Request(
                    kind,
                    virtualPort,
                    expectedTarget,
                    source,
                    token,
                    inBandEndOfStream,
                    true,
                    keyOffer,
                    proofContext,
                    tls);
        }

        /** The same request, asking that the connection run TLS once the handshake is done ({@link #TLS}). */
        public Request withTls() {
            return new Request(
                    kind,
                    virtualPort,
                    expectedTarget,
                    source,
                    token,
                    inBandEndOfStream,
                    holdUntilConfirmed,
                    keyOffer,
                    proofContext,
                    true);
        }

        /**
         * The same request carrying a key offer ({@link #KEY_PROOF}), made for the context
         * {@link IdentityHandshake#proofContext(Request)} gives for this request.
         */
        public Request withKeyOffer(byte[] offer) {
            return new Request(
                    kind,
                    virtualPort,
                    expectedTarget,
                    source,
                    token,
                    inBandEndOfStream,
                    holdUntilConfirmed,
                    offer,
                    null,
                    tls);
        }

        /** True if the request carries a key offer ({@link #KEY_PROOF}). */
        public boolean provesKey() {
            return keyOffer != null;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Request r
                    && kind == r.kind
                    && virtualPort == r.virtualPort
                    && java.util.Objects.equals(expectedTarget, r.expectedTarget)
                    && java.util.Objects.equals(source, r.source)
                    && java.util.Arrays.equals(token, r.token)
                    && inBandEndOfStream == r.inBandEndOfStream
                    && holdUntilConfirmed == r.holdUntilConfirmed
                    && java.util.Arrays.equals(keyOffer, r.keyOffer)
                    && tls == r.tls;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(
                    kind, virtualPort, expectedTarget, source, java.util.Arrays.hashCode(keyOffer));
        }

        @Override
        public String toString() {
            return "Request[" + kind + " port " + virtualPort + " to " + expectedTarget + " from " + source
                    + (inBandEndOfStream ? ", in-band end-of-stream" : "")
                    + (holdUntilConfirmed ? ", held" : "")
                    + (tls ? ", TLS" : "")
                    + (keyOffer != null ? ", key offer of " + keyOffer.length + " bytes" : "") + "]";
        }
    }

    /**
     * A listener's reply; {@code responder} is null when the listener could not parse the request,
     * and in the ACCEPT that hands a connection over ({@link #encodeAccept}); {@code inBandEndOfStream}
     * only on an ACCEPT of a request that asked for it.
     */
    public record Reply(
            Answer answer,
            NodeIdentity responder,
            String reason,
            boolean inBandEndOfStream,
            byte[] keyAnswer,
            boolean tls) {
        public Reply {
            if (tls && answer != Answer.ACCEPT) {
                throw new IllegalArgumentException("only an ACCEPT agrees to TLS");
            }
            if (inBandEndOfStream && answer != Answer.ACCEPT) {
                throw new IllegalArgumentException("only an ACCEPT agrees to in-band end-of-stream");
            }
            if (keyAnswer != null
                    && (answer != Answer.ACCEPT || keyAnswer.length == 0 || keyAnswer.length > MAX_KEY_MESSAGE)) {
                throw new IllegalArgumentException(
                        "only an ACCEPT carries a key answer, of 1-" + MAX_KEY_MESSAGE + " bytes");
            }
        }

        public Reply(
                Answer answer, NodeIdentity responder, String reason, boolean inBandEndOfStream, byte[] keyAnswer) {
            this(answer, responder, reason, inBandEndOfStream, keyAnswer, false);
        }

        public Reply(Answer answer, NodeIdentity responder, String reason, boolean inBandEndOfStream) {
            this(answer, responder, reason, inBandEndOfStream, null, false);
        }

        public Reply(Answer answer, NodeIdentity responder, String reason) {
            this(answer, responder, reason, false, null, false);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Reply r
                    && answer == r.answer
                    && java.util.Objects.equals(responder, r.responder)
                    && java.util.Objects.equals(reason, r.reason)
                    && inBandEndOfStream == r.inBandEndOfStream
                    && java.util.Arrays.equals(keyAnswer, r.keyAnswer)
                    && tls == r.tls;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(answer, responder, reason, inBandEndOfStream, tls)
                    + java.util.Arrays.hashCode(keyAnswer);
        }

        @Override
        public String toString() {
            return "Reply[" + answer + " from " + responder + (reason.isEmpty() ? "" : ": " + reason)
                    + (inBandEndOfStream ? ", in-band end-of-stream" : "")
                    + (tls ? ", TLS" : "")
                    + (keyAnswer != null ? ", key answer of " + keyAnswer.length + " bytes" : "") + "]";
        }
    }

    private IdentityHandshake() {}

    public static byte[] encode(Request request) {
        byte[] offer = request.keyOffer();
        byte[] target = ascii(request.expectedTarget());
        byte[] source = ascii(request.source());
        byte[] token = request.token() == null ? new byte[0] : request.token();
        ByteBuffer body = ByteBuffer.allocate(
                2 + 2 + target.length + 2 + source.length + token.length + (offer == null ? 0 : 2 + offer.length));
        body.putShort((short) request.virtualPort());
        putBytes(body, target);
        putBytes(body, source);
        body.put(token);
        if (offer != null) {
            putBytes(body, offer);
        }
        return frame(kindByte(request, offer != null), body.array());
    }

    private static int kindByte(Request request, boolean keyProof) {
        return request.kind().code
                | (request.inBandEndOfStream() ? IN_BAND_END_OF_STREAM : 0)
                | (request.holdUntilConfirmed() ? HOLD_UNTIL_CONFIRMED : 0)
                | (keyProof ? KEY_PROOF : 0)
                | (request.tls() ? TLS : 0);
    }

    /**
     * What a key offer on {@code request} is bound to: the kind byte as sent (with
     * {@link #KEY_PROOF} and every other flag) and the body before the offer (virtual port, both
     * identities as sent, the token), so an offer serves no other request. The request's own offer,
     * if any, is left out.
     */
    public static byte[] proofContext(Request request) {
        return proofContext(encode(request.withKeyOffer(null)));
    }

    /** The same from an encoded request without an offer, as it will be sent but for {@link #KEY_PROOF}. */
    public static byte[] proofContext(byte[] encodedRequest) {
        return proofContext(
                (encodedRequest[5] & 0xff) | KEY_PROOF,
                ByteBuffer.wrap(encodedRequest, HEADER_LENGTH, encodedRequest.length - HEADER_LENGTH));
    }

    /**
     * An encoded request without an offer, with {@code offer} appended (u16 length + bytes), the
     * body length grown to match and {@link #KEY_PROOF} set.
     */
    public static byte[] withKeyOffer(byte[] encodedRequest, byte[] offer) {
        if (offer.length == 0 || offer.length > MAX_KEY_MESSAGE) {
            throw new IllegalArgumentException(
                    "a key offer of " + offer.length + " bytes is not within 1-" + MAX_KEY_MESSAGE);
        }
        int body = encodedRequest.length - HEADER_LENGTH + 2 + offer.length;
        if (body > MAX_BODY_LENGTH) {
            throw new IllegalArgumentException("handshake body of " + body + " bytes exceeds " + MAX_BODY_LENGTH);
        }
        ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH + body);
        out.put(encodedRequest).putShort((short) offer.length).put(offer);
        out.put(5, (byte) ((encodedRequest[5] & 0xff) | KEY_PROOF));
        out.putShort(6, (short) body);
        return out.array();
    }

    /** The same from the kind byte and the body bytes (position to limit) before the offer. */
    private static byte[] proofContext(int kindCode, ByteBuffer bodyBeforeOffer) {
        ByteBuffer out = ByteBuffer.allocate(PROOF_LABEL.length + 1 + bodyBeforeOffer.remaining());
        out.put(PROOF_LABEL).put((byte) kindCode).put(bodyBeforeOffer.duplicate());
        return out.array();
    }

    /** The ACCEPT that hands a connection over: a header without a body. */
    public static byte[] encodeAccept() {
        return encodeAccept(false);
    }

    /** The same, agreeing to in-band end-of-stream when the request asked for it. */
    public static byte[] encodeAccept(boolean inBandEndOfStream) {
        return encodeAccept(inBandEndOfStream, false);
    }

    /** The same, agreeing to TLS ({@link #TLS}) when the request asked for it. */
    public static byte[] encodeAccept(boolean inBandEndOfStream, boolean tls) {
        return frame(
                Answer.ACCEPT.code | (inBandEndOfStream ? IN_BAND_END_OF_STREAM : 0) | (tls ? TLS : 0), new byte[0]);
    }

    /**
     * The ACCEPT of a request that proves keys: {@link #KEY_PROOF} set, the body the key answer
     * (u16 length + bytes).
     */
    public static byte[] encodeAccept(boolean inBandEndOfStream, byte[] keyAnswer) {
        return encodeAccept(inBandEndOfStream, keyAnswer, false);
    }

    /** The same, agreeing to TLS ({@link #TLS}) when the request asked for it. */
    public static byte[] encodeAccept(boolean inBandEndOfStream, byte[] keyAnswer, boolean tls) {
        return encode(new Reply(Answer.ACCEPT, null, "", inBandEndOfStream, keyAnswer, tls));
    }

    public static byte[] encode(Reply reply) {
        if (reply.keyAnswer() != null) {
            ByteBuffer body = ByteBuffer.allocate(2 + reply.keyAnswer().length);
            putBytes(body, reply.keyAnswer());
            return frame(
                    Answer.ACCEPT.code
                            | KEY_PROOF
                            | (reply.inBandEndOfStream() ? IN_BAND_END_OF_STREAM : 0)
                            | (reply.tls() ? TLS : 0),
                    body.array());
        }
        byte[] responder = ascii(reply.responder());
        byte[] reason = utf8Truncated(reply.reason() == null ? "" : reply.reason());
        ByteBuffer body = ByteBuffer.allocate(2 + responder.length + 2 + reason.length);
        putBytes(body, responder);
        putBytes(body, reason);
        return frame(
                reply.answer().code | (reply.inBandEndOfStream() ? IN_BAND_END_OF_STREAM : 0) | (reply.tls() ? TLS : 0),
                body.array());
    }

    /**
     * Checks a request or reply header and returns the body length it announces.
     *
     * @throws ProtocolException on wrong magic, another version, or a length over the maximum
     */
    public static int checkHeader(ByteBuffer header) throws ProtocolException {
        int magic = header.getInt(0);
        if (magic != MAGIC) {
            throw new ProtocolException(
                    String.format("not a Traverse handshake (magic 0x%08x, expected 0x%08x)", magic, MAGIC));
        }
        int version = header.get(4) & 0xff;
        if (version != VERSION) {
            throw new ProtocolException(
                    "unsupported protocol version " + version + " (this node speaks " + VERSION + ")");
        }
        int length = header.getShort(6) & 0xffff;
        if (length > MAX_BODY_LENGTH) {
            throw new ProtocolException("body length " + length + " exceeds the maximum of " + MAX_BODY_LENGTH);
        }
        return length;
    }

    /** The kind or answer code of a checked header. */
    public static int code(ByteBuffer header) {
        return header.get(5) & 0xff;
    }

    public static Request decodeRequest(int kindCode, ByteBuffer body) throws ProtocolException {
        boolean inBand = (kindCode & IN_BAND_END_OF_STREAM) != 0;
        boolean hold = (kindCode & HOLD_UNTIL_CONFIRMED) != 0;
        boolean keyProof = (kindCode & KEY_PROOF) != 0;
        boolean tls = (kindCode & TLS) != 0;
        Kind kind = Kind.fromCode(kindCode & ~REQUEST_FLAGS, kindCode);
        if (keyProof && kind == Kind.PROBE) {
            throw new ProtocolException("unknown handshake kind " + kindCode + " (a PROBE proves no key)");
        }
        if (tls && kind == Kind.PROBE) {
            throw new ProtocolException("unknown handshake kind " + kindCode + " (a PROBE asks for no TLS)");
        }
        int start = body.position();
        if (hold && kind != Kind.CONNECT) {
            throw new ProtocolException(
                    "unknown handshake kind " + kindCode + " (only a CONNECT is held until confirmed)");
        }
        try {
            int port = body.getShort() & 0xffff;
            if (port == 0) {
                throw new ProtocolException("virtual port 0 is not a port");
            }
            NodeIdentity target = identity(body, "expected target");
            if (target == null) {
                throw new ProtocolException("request names no target node");
            }
            NodeIdentity source = identity(body, "source");
            byte[] token = null;
            if (kind == Kind.REVERSE) {
                if (source == null) {
                    throw new ProtocolException("a REVERSE request must say which node dials");
                }
                token = new byte[TOKEN_LENGTH];
                body.get(token);
            }
            if (tls && (source == null || source.id().isEmpty())) {
                throw new ProtocolException("TLS needs a named source (with its id): its key is what TLS proves");
            }
            byte[] offer = null;
            byte[] context = null;
            if (keyProof) {
                if (source == null || source.id().isEmpty()) {
                    throw new ProtocolException("a key proof needs a named source (with its id)");
                }
                int end = body.position();
                offer = keyMessage(body, "key offer");
                context =
                        proofContext(kindCode, body.duplicate().position(start).limit(end));
            }
            requireConsumed(body);
            return new Request(kind, port, target, source, token, inBand, hold, offer, context, tls);
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("request body is truncated");
        }
    }

    public static Reply decodeReply(int answerCode, ByteBuffer body) throws ProtocolException {
        boolean inBand = (answerCode & IN_BAND_END_OF_STREAM) != 0;
        boolean keyProof = (answerCode & KEY_PROOF) != 0;
        boolean tls = (answerCode & TLS) != 0;
        Answer answer = Answer.fromCode(answerCode & ~(IN_BAND_END_OF_STREAM | KEY_PROOF | TLS), answerCode);
        if (tls && answer != Answer.ACCEPT) {
            throw new ProtocolException("unknown handshake answer " + answerCode + " (TLS goes with ACCEPT only)");
        }
        if (inBand && answer != Answer.ACCEPT) {
            throw new ProtocolException(
                    "unknown handshake answer " + answerCode + " (in-band end-of-stream goes with ACCEPT only)");
        }
        if (keyProof) {
            if (answer != Answer.ACCEPT) {
                throw new ProtocolException(
                        "unknown handshake answer " + answerCode + " (a key answer goes with ACCEPT only)");
            }
            try {
                byte[] keyAnswer = keyMessage(body, "key answer");
                requireConsumed(body);
                return new Reply(answer, null, "", inBand, keyAnswer, tls);
            } catch (BufferUnderflowException e) {
                throw new ProtocolException("reply body is truncated");
            }
        }
        if (answer == Answer.ACCEPT && !body.hasRemaining()) {
            return new Reply(answer, null, "", inBand, null, tls); // encodeAccept
        }
        try {
            NodeIdentity responder = identity(body, "responder");
            int reasonLength = body.getShort() & 0xffff;
            if (reasonLength > body.remaining()) {
                throw new ProtocolException("reason length " + reasonLength + " runs past the body");
            }
            byte[] reason = new byte[reasonLength];
            body.get(reason);
            requireConsumed(body);
            return new Reply(answer, responder, new String(reason, StandardCharsets.UTF_8), inBand, null, tls);
        } catch (BufferUnderflowException e) {
            throw new ProtocolException("reply body is truncated");
        }
    }

    /**
     * Reads exactly one reply from a blocking stream, never a byte more: what follows belongs to
     * the application.
     */
    public static Reply readReply(InputStream in) throws IOException {
        return readReply(in, HEADER_LENGTH);
    }

    /**
     * As {@link #readReply(InputStream)}, for a reply whose length the client knows before it comes
     * (the ACCEPT of a resumed key proof, {@code expectedLength} bytes): its first read asks for
     * that many bytes, so that the header and body come in one system call rather than two. Bytes
     * past the reply can only be read where the reply is shorter than expected: then it is not the
     * ACCEPT the client needs, and the handshake fails whatever it is. An {@code expectedLength}
     * up to the header's (0: not known) reads as {@link #readReply(InputStream)} does.
     */
    public static Reply readReply(InputStream in, int expectedLength) throws IOException {
        byte[] first = new byte[Math.max(HEADER_LENGTH, expectedLength)];
        int n = 0;
        while (n < HEADER_LENGTH) {
            int r = in.read(first, n, first.length - n);
            if (r < 0) {
                throw new EOFException("connection closed during the handshake (reply header: " + n + " of "
                        + HEADER_LENGTH + " bytes)");
            }
            n += r;
        }
        ByteBuffer header = ByteBuffer.wrap(first, 0, HEADER_LENGTH);
        int length = checkHeader(header);
        byte[] body = new byte[length];
        int have = Math.min(n - HEADER_LENGTH, length);
        System.arraycopy(first, HEADER_LENGTH, body, 0, have);
        if (have < length) {
            byte[] rest = readExactly(in, length - have, "reply body");
            System.arraycopy(rest, 0, body, have, rest.length);
        }
        return decodeReply(code(header), ByteBuffer.wrap(body));
    }

    /** The same from a blocking channel: exactly one reply, not a byte more. */
    public static Reply readReply(ReadableByteChannel in) throws IOException {
        ByteBuffer header = readExactly(in, ByteBuffer.allocate(HEADER_LENGTH), "reply header");
        int length = checkHeader(header);
        ByteBuffer body = readExactly(in, ByteBuffer.allocate(length), "reply body");
        body.flip();
        return decodeReply(code(header), body);
    }

    private static ByteBuffer readExactly(ReadableByteChannel in, ByteBuffer buffer, String what) throws IOException {
        while (buffer.hasRemaining()) {
            if (in.read(buffer) < 0) {
                throw new EOFException("connection closed during the handshake (" + what + ": " + buffer.position()
                        + " of " + buffer.capacity() + " bytes)");
            }
        }
        return buffer;
    }

    private static byte[] readExactly(InputStream in, int length, String what) throws IOException {
        byte[] bytes = in.readNBytes(length);
        if (bytes.length != length) {
            throw new EOFException("connection closed during the handshake (" + what + ": " + bytes.length + " of "
                    + length + " bytes)");
        }
        return bytes;
    }

    private static NodeIdentity identity(ByteBuffer body, String what) throws ProtocolException {
        int length = body.getShort() & 0xffff;
        if (length == 0) {
            return null;
        }
        if (length > body.remaining()) {
            throw new ProtocolException(what + " length " + length + " runs past the body");
        }
        byte[] bytes = new byte[length];
        body.get(bytes);
        try {
            return NodeIdentity.parse(new String(bytes, StandardCharsets.ISO_8859_1));
        } catch (IllegalArgumentException e) {
            throw new ProtocolException(what + ": " + e.getMessage());
        }
    }

    /** A key offer or answer: u16 length (1 to {@link #MAX_KEY_MESSAGE}, checked first) and the bytes. */
    private static byte[] keyMessage(ByteBuffer body, String what) throws ProtocolException {
        int length = body.getShort() & 0xffff;
        if (length == 0 || length > MAX_KEY_MESSAGE) {
            throw new ProtocolException(what + " length " + length + " is not within 1-" + MAX_KEY_MESSAGE);
        }
        if (length > body.remaining()) {
            throw new ProtocolException(what + " length " + length + " runs past the body");
        }
        byte[] bytes = new byte[length];
        body.get(bytes);
        return bytes;
    }

    private static void requireConsumed(ByteBuffer body) throws ProtocolException {
        if (body.hasRemaining()) {
            throw new ProtocolException(body.remaining() + " unexpected bytes after the last field");
        }
    }

    private static byte[] frame(int code, byte[] body) {
        if (body.length > MAX_BODY_LENGTH) {
            throw new IllegalArgumentException(
                    "handshake body of " + body.length + " bytes exceeds " + MAX_BODY_LENGTH);
        }
        ByteBuffer out = ByteBuffer.allocate(HEADER_LENGTH + body.length);
        out.putInt(MAGIC)
                .put((byte) VERSION)
                .put((byte) code)
                .putShort((short) body.length)
                .put(body);
        return out.array();
    }

    private static void putBytes(ByteBuffer out, byte[] bytes) {
        out.putShort((short) bytes.length).put(bytes);
    }

    private static byte[] ascii(NodeIdentity identity) {
        return identity == null ? new byte[0] : identity.toText().getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] utf8Truncated(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_REASON_BYTES) {
            return bytes;
        }
        // Cut on a character boundary so the far side still decodes valid UTF-8.
        int end = MAX_REASON_BYTES;
        while (end > 0 && (bytes[end] & 0xc0) == 0x80) {
            end--;
        }
        return java.util.Arrays.copyOf(bytes, end);
    }
}
