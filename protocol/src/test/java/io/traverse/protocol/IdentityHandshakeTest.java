package io.traverse.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.identity.RandomIdentities;
import io.traverse.protocol.IdentityHandshake.Answer;
import io.traverse.protocol.IdentityHandshake.Kind;
import io.traverse.protocol.IdentityHandshake.Reply;
import io.traverse.protocol.IdentityHandshake.Request;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class IdentityHandshakeTest {
    static final NodeIdentity TARGET = NodeIdentity.parse("tv1-target.a10-0-0-2p5000.h198-18-0-1p17000");
    static final NodeIdentity SOURCE = NodeIdentity.parse("tv1-source.a10-0-0-3p5001");

    /** Decodes a whole request frame the way the listener does: header, then exactly the body it announces. */
    static Request decodeRequestFrame(byte[] frame) throws ProtocolException {
        ByteBuffer header = ByteBuffer.wrap(frame, 0, IdentityHandshake.HEADER_LENGTH);
        int length = IdentityHandshake.checkHeader(header);
        return IdentityHandshake.decodeRequest(
                IdentityHandshake.code(header),
                ByteBuffer.wrap(frame, IdentityHandshake.HEADER_LENGTH, length).slice());
    }

    static Reply decodeReplyFrame(byte[] frame) throws IOException {
        return IdentityHandshake.readReply(new ByteArrayInputStream(frame));
    }

    @Test
    void aHeldConnectRoundTripsAndOnlyAConnectIsHeld() throws Exception {
        Request held = new Request(Kind.CONNECT, 80, TARGET, SOURCE).held();
        byte[] frame = IdentityHandshake.encode(held);
        assertThat(frame[5]).isEqualTo((byte) (Kind.CONNECT.code | IdentityHandshake.HOLD_UNTIL_CONFIRMED));
        Request decoded = decodeRequestFrame(frame);
        assertThat(decoded.holdUntilConfirmed()).isTrue();
        assertThat(decoded.kind()).isEqualTo(Kind.CONNECT);
        assertThat(decodeRequestFrame(IdentityHandshake.encode(new Request(Kind.CONNECT, 80, TARGET, SOURCE)))
                        .holdUntilConfirmed())
                .isFalse();
        byte[] probe = IdentityHandshake.encode(new Request(Kind.PROBE, 80, TARGET, SOURCE));
        probe[5] |= (byte) IdentityHandshake.HOLD_UNTIL_CONFIRMED;
        assertThatThrownBy(() -> decodeRequestFrame(probe))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("held");
        assertThatThrownBy(() -> new Request(Kind.PROBE, 80, TARGET, SOURCE).held())
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void requestsRoundTrip() throws Exception {
        for (int n = 0; n < 1000; n++) {
            Random r = RandomIdentities.forCase(n);
            NodeIdentity source = r.nextInt(4) == 0 ? null : RandomIdentities.identity(r);
            Request request = new Request(Kind.CONNECT, RandomIdentities.port(r), RandomIdentities.identity(r), source);
            byte[] frame = IdentityHandshake.encode(request);
            String where = RandomIdentities.describe(n) + ", " + request;

            ByteBuffer header = ByteBuffer.wrap(frame, 0, IdentityHandshake.HEADER_LENGTH);
            assertThat(header.getInt(0)).as(where).isEqualTo(IdentityHandshake.MAGIC);
            assertThat(header.get(4)).as(where).isEqualTo((byte) IdentityHandshake.VERSION);
            assertThat(IdentityHandshake.code(header)).as(where).isEqualTo(Kind.CONNECT.code);
            assertThat(IdentityHandshake.checkHeader(header))
                    .as(where)
                    .isEqualTo(frame.length - IdentityHandshake.HEADER_LENGTH);
            assertThat(decodeRequestFrame(frame)).as(where).isEqualTo(request);
        }
    }

    @Test
    void repliesRoundTrip() throws Exception {
        for (int n = 0; n < 1000; n++) {
            Random r = RandomIdentities.forCase(n);
            Answer answer = Answer.values()[r.nextInt(Answer.values().length)];
            NodeIdentity responder = r.nextInt(5) == 0 ? null : RandomIdentities.identity(r);
            String reason = randomText(r, r.nextInt(60));
            Reply reply = new Reply(answer, responder, reason);
            byte[] frame = IdentityHandshake.encode(reply);
            String where = RandomIdentities.describe(n) + ", " + reply;
            assertThat(decodeReplyFrame(frame)).as(where).isEqualTo(reply);
        }
        // A null reason goes out as an empty one.
        assertThat(decodeReplyFrame(IdentityHandshake.encode(new Reply(Answer.ACCEPT, TARGET, null))))
                .isEqualTo(new Reply(Answer.ACCEPT, TARGET, ""));
    }

    private static String randomText(Random r, int length) {
        String alphabet = "abc xyz-.:ÄéßΩЖ中文€\uD83D\uDE00";
        StringBuilder sb = new StringBuilder();
        while (sb.codePointCount(0, sb.length()) < length) {
            int i = r.nextInt(alphabet.length());
            if (Character.isHighSurrogate(alphabet.charAt(i))) {
                sb.append(alphabet, i, i + 2);
            } else if (!Character.isLowSurrogate(alphabet.charAt(i))) {
                sb.append(alphabet.charAt(i));
            }
        }
        return sb.toString();
    }

    @Test
    void wrongMagicIsRefused() {
        byte[] frame = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, TARGET, SOURCE));
        frame[0] = 'G'; // "GRAV", or an HTTP client's "GET "
        assertThatThrownBy(() -> decodeRequestFrame(frame))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("not a Traverse handshake");
        byte[] http = "GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> IdentityHandshake.checkHeader(ByteBuffer.wrap(http)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("magic");
    }

    @Test
    void otherVersionIsRefused() {
        for (int version : new int[] {0, 2, 255}) {
            byte[] frame = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, TARGET, SOURCE));
            frame[4] = (byte) version;
            assertThatThrownBy(() -> decodeRequestFrame(frame))
                    .as("version %d", version)
                    .isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("unsupported protocol version " + version);
        }
    }

    @Test
    void bodyLengthOverTheMaximumIsRefusedFromTheHeaderAlone() throws Exception {
        ByteBuffer header = ByteBuffer.allocate(IdentityHandshake.HEADER_LENGTH);
        header.putInt(IdentityHandshake.MAGIC)
                .put((byte) IdentityHandshake.VERSION)
                .put((byte) 1);
        header.putShort(6, (short) IdentityHandshake.MAX_BODY_LENGTH);
        assertThat(IdentityHandshake.checkHeader(header)).isEqualTo(IdentityHandshake.MAX_BODY_LENGTH);
        for (int length : new int[] {IdentityHandshake.MAX_BODY_LENGTH + 1, 0xffff}) {
            header.putShort(6, (short) length);
            assertThatThrownBy(() -> IdentityHandshake.checkHeader(header))
                    .isInstanceOf(ProtocolException.class)
                    .hasMessageContaining(Integer.toString(length));
        }
    }

    @Test
    void theAcceptThatHandsOverIsAHeaderAloneAndReadWithoutTouchingWhatFollows() throws Exception {
        byte[] accept = IdentityHandshake.encodeAccept();
        assertThat(accept).hasSize(IdentityHandshake.HEADER_LENGTH);
        byte[] application = "first bytes of the application".getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        wire.write(accept);
        wire.write(application);
        InputStream in = new ByteArrayInputStream(wire.toByteArray());
        Reply reply = IdentityHandshake.readReply(in);
        assertThat(reply.answer()).isEqualTo(Answer.ACCEPT);
        assertThat(reply.responder()).isNull();
        assertThat(reply.reason()).isEmpty();
        assertThat(in.readAllBytes()).isEqualTo(application);
        // Only ACCEPT may come without a body: any other answer still says who answered and why.
        for (Answer other : Answer.values()) {
            if (other != Answer.ACCEPT) {
                assertThatThrownBy(() -> IdentityHandshake.decodeReply(other.code, ByteBuffer.allocate(0)))
                        .as("%s without a body", other)
                        .isInstanceOf(ProtocolException.class);
            }
        }
    }

    @Test
    void truncatedBodiesAreRefused() {
        byte[] request = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, TARGET, SOURCE));
        byte[] reply = IdentityHandshake.encode(new Reply(Answer.WRONG_NODE, TARGET, "not me"));
        for (int cut = IdentityHandshake.HEADER_LENGTH; cut < request.length; cut++) {
            ByteBuffer body = ByteBuffer.wrap(Arrays.copyOfRange(request, IdentityHandshake.HEADER_LENGTH, cut));
            assertThatThrownBy(() -> IdentityHandshake.decodeRequest(Kind.CONNECT.code, body))
                    .as("cut at %d", cut)
                    .isInstanceOf(ProtocolException.class);
        }
        for (int cut = IdentityHandshake.HEADER_LENGTH; cut < reply.length; cut++) {
            ByteBuffer body = ByteBuffer.wrap(Arrays.copyOfRange(reply, IdentityHandshake.HEADER_LENGTH, cut));
            assertThatThrownBy(() -> IdentityHandshake.decodeReply(Answer.WRONG_NODE.code, body))
                    .as("cut at %d", cut)
                    .isInstanceOf(ProtocolException.class);
        }
    }

    @Test
    void lengthsRunningPastTheBodyAreRefused() {
        ByteBuffer body = ByteBuffer.allocate(2 + 2 + 3);
        body.putShort((short) 80)
                .putShort((short) 500)
                .put("tv1".getBytes(StandardCharsets.US_ASCII))
                .flip();
        assertThatThrownBy(() -> IdentityHandshake.decodeRequest(Kind.CONNECT.code, body))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("expected target length 500 runs past the body");

        ByteBuffer reply = ByteBuffer.allocate(2 + 2 + 1);
        reply.putShort((short) 0).putShort((short) 9).put((byte) 'x').flip();
        assertThatThrownBy(() -> IdentityHandshake.decodeReply(Answer.REFUSED.code, reply))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("reason length 9 runs past the body");
    }

    @Test
    void trailingBytesAreRefused() {
        byte[] frame = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, TARGET, SOURCE));
        byte[] body = Arrays.copyOf(
                Arrays.copyOfRange(frame, IdentityHandshake.HEADER_LENGTH, frame.length),
                frame.length - IdentityHandshake.HEADER_LENGTH + 3);
        assertThatThrownBy(() -> IdentityHandshake.decodeRequest(Kind.CONNECT.code, ByteBuffer.wrap(body)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("3 unexpected bytes");

        byte[] reply = IdentityHandshake.encode(new Reply(Answer.ACCEPT, TARGET, "ok"));
        byte[] replyBody = Arrays.copyOf(
                Arrays.copyOfRange(reply, IdentityHandshake.HEADER_LENGTH, reply.length),
                reply.length - IdentityHandshake.HEADER_LENGTH + 1);
        assertThatThrownBy(() -> IdentityHandshake.decodeReply(Answer.ACCEPT.code, ByteBuffer.wrap(replyBody)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("1 unexpected bytes");
    }

    @Test
    void unknownKindAndAnswerCodesAreRefused() {
        byte[] request = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, TARGET, SOURCE));
        byte[] reply = IdentityHandshake.encode(new Reply(Answer.ACCEPT, TARGET, ""));
        for (int code = 0; code < 256; code++) {
            int c = code;
            // With the in-band end-of-stream bit every kind is known (InBandEndOfStreamTest).
            // So is a CONNECT with the hold bit (with in-band end-of-stream or not).
            // A CONNECT or REVERSE with the key proof bit is known too (its body then lacks the offer), and
            // with the TLS bit (from the named source here).
            int connectOrReverseFlags = IdentityHandshake.KEY_PROOF | IdentityHandshake.TLS;
            int withoutProof = (c & connectOrReverseFlags) != 0
                            && ((c & 0x0f) == Kind.CONNECT.code || (c & 0x0f) == Kind.REVERSE.code)
                    ? c & ~connectOrReverseFlags
                    : c;
            boolean knownKind = Arrays.stream(Kind.values())
                            .anyMatch(k -> k.code == withoutProof
                                    || (k.code | IdentityHandshake.IN_BAND_END_OF_STREAM) == withoutProof)
                    || (withoutProof & ~IdentityHandshake.IN_BAND_END_OF_STREAM)
                            == (Kind.CONNECT.code | IdentityHandshake.HOLD_UNTIL_CONFIRMED);
            boolean knownAnswer = Arrays.stream(Answer.values()).anyMatch(a -> a.code == c)
                    || (c
                                    & ~(IdentityHandshake.IN_BAND_END_OF_STREAM
                                            | IdentityHandshake.KEY_PROOF
                                            | IdentityHandshake.TLS))
                            == Answer.ACCEPT.code;
            byte[] req = request.clone();
            req[5] = (byte) code;
            byte[] rep = reply.clone();
            rep[5] = (byte) code;
            if (!knownKind) {
                assertThatThrownBy(() -> decodeRequestFrame(req))
                        .as("kind %d", code)
                        .isInstanceOf(ProtocolException.class)
                        .hasMessageContaining("unknown handshake kind " + code);
            }
            if (!knownAnswer) {
                assertThatThrownBy(() -> decodeReplyFrame(rep))
                        .as("answer %d", code)
                        .isInstanceOf(ProtocolException.class)
                        .hasMessageContaining("unknown handshake answer " + code);
            }
        }
    }

    @Test
    void invalidFieldsAreRefused() {
        // virtual port 0
        byte[] body = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, TARGET, null));
        body[IdentityHandshake.HEADER_LENGTH] = 0;
        body[IdentityHandshake.HEADER_LENGTH + 1] = 0;
        assertThatThrownBy(() -> decodeRequestFrame(body))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("virtual port 0");

        // no target
        byte[] anonymousTarget = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, null, SOURCE));
        assertThatThrownBy(() -> decodeRequestFrame(anonymousTarget))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("no target");

        // identity text that does not parse: the message says which field and which part
        byte[] bad = frameWithTarget("tv1-x.a300-0-0-1p5000");
        assertThatThrownBy(() -> decodeRequestFrame(bad))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("expected target")
                .hasMessageContaining("a300-0-0-1p5000");
        byte[] notAscii = frameWithTarget("tv1-\u00ff\u00fe.a10-0-0-1p5000");
        assertThatThrownBy(() -> decodeRequestFrame(notAscii)).isInstanceOf(ProtocolException.class);
        byte[] garbage = frameWithTarget("GET / HTTP/1.1");
        assertThatThrownBy(() -> decodeRequestFrame(garbage)).isInstanceOf(ProtocolException.class);
        assertThatThrownBy(() -> new Request(Kind.CONNECT, 0, TARGET, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] frameWithTarget(String target) {
        byte[] text = target.getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer body = ByteBuffer.allocate(2 + 2 + text.length + 2);
        body.putShort((short) 80).putShort((short) text.length).put(text).putShort((short) 0);
        ByteBuffer frame = ByteBuffer.allocate(IdentityHandshake.HEADER_LENGTH + body.capacity());
        frame.putInt(IdentityHandshake.MAGIC)
                .put((byte) IdentityHandshake.VERSION)
                .put((byte) Kind.CONNECT.code)
                .putShort((short) body.capacity())
                .put(body.array());
        return frame.array();
    }

    @Test
    void readReplyReadsExactlyOneReplyAndLeavesTheRest() throws Exception {
        byte[] reply = IdentityHandshake.encode(new Reply(Answer.ACCEPT, TARGET, "welcome"));
        byte[] application = "application bytes that follow".getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        wire.write(reply);
        wire.write(application);

        ByteArrayInputStream in = new ByteArrayInputStream(wire.toByteArray());
        assertThat(IdentityHandshake.readReply(in)).isEqualTo(new Reply(Answer.ACCEPT, TARGET, "welcome"));
        assertThat(in.readAllBytes()).isEqualTo(application);

        // Also when the network hands over one byte at a time.
        CountingTrickle trickle = new CountingTrickle(wire.toByteArray());
        assertThat(IdentityHandshake.readReply(trickle)).isEqualTo(new Reply(Answer.ACCEPT, TARGET, "welcome"));
        assertThat(trickle.consumed).isEqualTo(reply.length);
        assertThat(trickle.readAllBytes()).isEqualTo(application);
    }

    /**
     * A resumed key proof's ACCEPT has a length the client knows: one read takes it whole, and the
     * application's bytes behind it stay in the stream, also when the network trickles; a reply
     * shorter than expected is still read as what it is (the handshake then fails on it).
     */
    @Test
    void aReplyOfKnownLengthIsReadWholeAndLeavesTheRest() throws Exception {
        byte[] answer = new byte[io.traverse.security.PeerSessions.RESUMED_ANSWER_LENGTH];
        new java.util.Random(7).nextBytes(answer);
        byte[] accept = IdentityHandshake.encodeAccept(false, answer, true);
        int expected = IdentityHandshake.HEADER_LENGTH + 2 + answer.length;
        assertThat(accept).hasSize(expected);
        byte[] application = "the server's first bytes".getBytes(StandardCharsets.US_ASCII);
        byte[] wire = concat(accept, application);

        ByteArrayInputStream in = new ByteArrayInputStream(wire);
        Reply reply = IdentityHandshake.readReply(in, expected);
        assertThat(reply.answer()).isEqualTo(Answer.ACCEPT);
        assertThat(reply.keyAnswer()).isEqualTo(answer);
        assertThat(reply.tls()).isTrue();
        assertThat(in.readAllBytes()).isEqualTo(application);

        CountingTrickle trickle = new CountingTrickle(wire);
        assertThat(IdentityHandshake.readReply(trickle, expected).keyAnswer()).isEqualTo(answer);
        assertThat(trickle.consumed).isEqualTo(expected);

        byte[] refusal = IdentityHandshake.encode(new Reply(Answer.REFUSED, null, "no"));
        assertThat(refusal.length).isLessThan(expected);
        assertThat(IdentityHandshake.readReply(new ByteArrayInputStream(refusal), expected))
                .isEqualTo(new Reply(Answer.REFUSED, null, "no"));
        for (int cut : new int[] {0, 3, IdentityHandshake.HEADER_LENGTH, expected - 1}) {
            assertThatThrownBy(() ->
                            IdentityHandshake.readReply(new ByteArrayInputStream(Arrays.copyOf(accept, cut)), expected))
                    .as("cut at %d", cut)
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("handshake");
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void readReplyOnAShortStreamIsAnEof() {
        byte[] reply = IdentityHandshake.encode(new Reply(Answer.ACCEPT, TARGET, "welcome"));
        for (int cut : new int[] {0, 3, IdentityHandshake.HEADER_LENGTH, reply.length - 1}) {
            assertThatThrownBy(() -> IdentityHandshake.readReply(new ByteArrayInputStream(Arrays.copyOf(reply, cut))))
                    .as("cut at %d", cut)
                    .isInstanceOf(EOFException.class)
                    .hasMessageContaining("handshake");
        }
    }

    @Test
    void longReasonsAreCutOnACharacterBoundary() throws Exception {
        for (String unit : new String[] {"a", "é", "€", "\uD83D\uDE00", "a€"}) {
            String reason = unit.repeat(1200);
            Reply decoded = decodeReplyFrame(IdentityHandshake.encode(new Reply(Answer.OVERLOAD, TARGET, reason)));
            byte[] bytes = decoded.reason().getBytes(StandardCharsets.UTF_8);
            assertThat(bytes.length)
                    .as(unit)
                    .isLessThanOrEqualTo(IdentityHandshake.MAX_REASON_BYTES)
                    .isGreaterThan(IdentityHandshake.MAX_REASON_BYTES - 4);
            assertThat(reason).as(unit).startsWith(decoded.reason());
            assertThat(decoded.reason()).as(unit).doesNotContain("\uFFFD");
        }
        String exact = "x".repeat(IdentityHandshake.MAX_REASON_BYTES);
        assertThat(decodeReplyFrame(IdentityHandshake.encode(new Reply(Answer.REFUSED, TARGET, exact)))
                        .reason())
                .isEqualTo(exact);
    }

    @Test
    void largestIdentitiesFitInOneFrame() throws Exception {
        NodeIdentity.Builder big = NodeIdentity.builder().id(NodeId.random());
        while (big.build().toText().length() < 4000) {
            big.address(RandomIdentities.endpoint("2001:db8:1:2:3:4:5:6", 65535));
        }
        NodeIdentity identity = big.build();
        Request request = new Request(Kind.CONNECT, 65535, identity, identity);
        assertThat(decodeRequestFrame(IdentityHandshake.encode(request))).isEqualTo(request);
    }

    /** Hands out one byte per read and counts what was taken. */
    private static final class CountingTrickle extends InputStream {
        private final byte[] data;
        private int position;
        int consumed;

        CountingTrickle(byte[] data) {
            this.data = data;
        }

        @Override
        public int read() {
            if (position >= data.length) {
                return -1;
            }
            consumed++;
            return data[position++] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            int c = read();
            if (c < 0) {
                return -1;
            }
            b[off] = (byte) c;
            return 1;
        }
    }

    @Test
    void theBitRoundTripsInRequestAndAcceptAndIsAbsentOtherwise() throws Exception {
        byte[] asked = IdentityHandshake.encode(
                new IdentityHandshake.Request(IdentityHandshake.Kind.CONNECT, 80, TARGET, SOURCE, null, true));
        byte[] plain = IdentityHandshake.encode(
                new IdentityHandshake.Request(IdentityHandshake.Kind.CONNECT, 80, TARGET, SOURCE));
        assertThat(asked[5] & 0xff).isEqualTo(0x81);
        assertThat(plain[5] & 0xff).isEqualTo(0x01); // a node that does not ask sends what it always sent
        IdentityHandshake.Request decoded = decodeRequestFrame(asked);
        assertThat(decoded.inBandEndOfStream()).isTrue();
        assertThat(decodeRequestFrame(plain).inBandEndOfStream()).isFalse();

        byte[] agreed = IdentityHandshake.encode(
                new IdentityHandshake.Reply(IdentityHandshake.Answer.ACCEPT, TARGET, "", true));
        assertThat(agreed[5] & 0xff).isEqualTo(0x80);
        assertThat(IdentityHandshake.readReply(new java.io.ByteArrayInputStream(agreed))
                        .inBandEndOfStream())
                .isTrue();
    }

    @Test
    void theBitOnAReverseRequestIsKeptButOnARefusalIsAProtocolError() throws Exception {
        // A dial-back through a tunnel (the reverse module through an sshd) asks for it as a CONNECT does.
        byte[] token = new byte[IdentityHandshake.TOKEN_LENGTH];
        token[3] = 7;
        byte[] reverse = IdentityHandshake.encode(
                new IdentityHandshake.Request(IdentityHandshake.Kind.REVERSE, 80, TARGET, SOURCE, token, true));
        assertThat(reverse[5]).isEqualTo((byte) (IdentityHandshake.Kind.REVERSE.code | 0x80));
        IdentityHandshake.Request decoded = decodeRequestFrame(reverse);
        assertThat(decoded.kind()).isEqualTo(IdentityHandshake.Kind.REVERSE);
        assertThat(decoded.inBandEndOfStream()).isTrue();
        assertThat(decoded.token()).isEqualTo(token);
        byte[] refused =
                IdentityHandshake.encode(new IdentityHandshake.Reply(IdentityHandshake.Answer.REFUSED, TARGET, "no"));
        refused[5] |= (byte) 0x80;
        assertThatThrownBy(() -> IdentityHandshake.readReply(new java.io.ByteArrayInputStream(refused)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("unknown handshake answer 131");
    }

    @Test
    void tlsIsAskedByANamedConnectOrReverseAndAgreedByAnAcceptOnly() throws Exception {
        Request connect = new Request(Kind.CONNECT, 80, TARGET, SOURCE).withTls();
        byte[] frame = IdentityHandshake.encode(connect);
        assertThat(frame[5] & 0xff).isEqualTo(Kind.CONNECT.code | IdentityHandshake.TLS);
        assertThat(decodeRequestFrame(frame)).isEqualTo(connect);
        assertThat(decodeRequestFrame(frame).tls()).isTrue();
        assertThat(decodeRequestFrame(IdentityHandshake.encode(new Request(Kind.CONNECT, 80, TARGET, SOURCE)))
                        .tls())
                .isFalse();
        Request everything =
                new Request(Kind.CONNECT, 80, TARGET, SOURCE, null, true).held().withTls();
        assertThat(decodeRequestFrame(IdentityHandshake.encode(everything))).isEqualTo(everything);
        Request reverse =
                new Request(Kind.REVERSE, 80, TARGET, SOURCE, new byte[IdentityHandshake.TOKEN_LENGTH]).withTls();
        assertThat(decodeRequestFrame(IdentityHandshake.encode(reverse)).tls()).isTrue();

        assertThatThrownBy(() -> new Request(Kind.PROBE, 80, TARGET, SOURCE).withTls())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Request(Kind.CONNECT, 80, TARGET, null).withTls())
                .isInstanceOf(IllegalArgumentException.class);
        byte[] probe = IdentityHandshake.encode(new Request(Kind.PROBE, 80, TARGET, SOURCE));
        probe[5] |= (byte) IdentityHandshake.TLS;
        assertThatThrownBy(() -> decodeRequestFrame(probe))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("asks for no TLS");
        byte[] anonymous = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, TARGET, null));
        anonymous[5] |= (byte) IdentityHandshake.TLS;
        assertThatThrownBy(() -> decodeRequestFrame(anonymous))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("named source");

        byte[] accept = IdentityHandshake.encodeAccept(false, true);
        assertThat(accept[5] & 0xff).isEqualTo(IdentityHandshake.TLS);
        assertThat(decodeReplyFrame(accept).tls()).isTrue();
        assertThat(decodeReplyFrame(IdentityHandshake.encodeAccept(false)).tls())
                .isFalse();
        Reply withKey = decodeReplyFrame(IdentityHandshake.encodeAccept(true, new byte[] {2, 1}, true));
        assertThat(withKey.tls()).isTrue();
        assertThat(withKey.inBandEndOfStream()).isTrue();
        assertThat(withKey.keyAnswer()).containsExactly(2, 1);
        Reply withResponder =
                decodeReplyFrame(IdentityHandshake.encode(new Reply(Answer.ACCEPT, TARGET, "", false, null, true)));
        assertThat(withResponder.tls()).isTrue();
        assertThat(withResponder.responder()).isEqualTo(TARGET);
        byte[] refused = IdentityHandshake.encode(new Reply(Answer.REFUSED, TARGET, "no"));
        refused[5] |= (byte) IdentityHandshake.TLS;
        assertThatThrownBy(() -> decodeReplyFrame(refused))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("TLS goes with ACCEPT only");
        assertThatThrownBy(() -> new Reply(Answer.REFUSED, TARGET, "no", false, null, true))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
