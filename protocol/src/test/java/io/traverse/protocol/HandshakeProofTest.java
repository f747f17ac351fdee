package io.traverse.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.IdentityHandshake.Answer;
import io.traverse.protocol.IdentityHandshake.Kind;
import io.traverse.protocol.IdentityHandshake.Reply;
import io.traverse.protocol.IdentityHandshake.Request;
import io.traverse.security.IdentityKey;
import io.traverse.security.PeerSessions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The key proof of the identity handshake ({@link IdentityHandshake#KEY_PROOF}): the fields with
 * and without the bit, their bounds, and the agreement bound to the request it came in.
 */
class HandshakeProofTest {
    private final IdentityKey clientKey = IdentityKey.generate();
    private final IdentityKey listenerKey = IdentityKey.generate();
    private final PeerSessions client = new PeerSessions(clientKey, new SecureRandom());
    private final PeerSessions listener = new PeerSessions(listenerKey, new SecureRandom());
    private final NodeIdentity target = NodeIdentity.parse("tv1-" + listenerKey.id() + ".a10-0-0-2p5000");
    private final NodeIdentity source = NodeIdentity.parse("tv1-" + clientKey.id() + ".a10-0-0-3p5001");

    private static Request decode(byte[] frame) throws ProtocolException {
        return IdentityHandshakeTest.decodeRequestFrame(frame);
    }

    @Test
    void aRequestWithAnOfferRoundTripsAndWithoutTheBitIsByteForByteAsBefore() throws Exception {
        Request plain = new Request(Kind.CONNECT, 80, target, source);
        byte[] before = IdentityHandshake.encode(plain);
        assertThat(decode(before).provesKey()).isFalse();
        assertThat(decode(before).keyOffer()).isNull();

        HandshakeProof.Client offer = HandshakeProof.offer(client, listenerKey.id(), before);
        byte[] sent = offer.request();
        assertThat(sent[5]).isEqualTo((byte) (Kind.CONNECT.code | IdentityHandshake.KEY_PROOF));
        assertThat(Arrays.copyOfRange(sent, IdentityHandshake.HEADER_LENGTH, before.length))
                .isEqualTo(Arrays.copyOfRange(before, IdentityHandshake.HEADER_LENGTH, before.length));
        Request decoded = decode(sent);
        assertThat(decoded.provesKey()).isTrue();
        assertThat(decoded.source()).isEqualTo(source);
        assertThat(IdentityHandshake.encode(decoded)).isEqualTo(sent);
        assertThat(decoded.proofContext()).isEqualTo(IdentityHandshake.proofContext(before));

        // Every flag goes with it: held, in-band end-of-stream.
        byte[] heldTunnelled =
                IdentityHandshake.encode(new Request(Kind.CONNECT, 80, target, source, null, true).held());
        Request both = decode(
                HandshakeProof.offer(client, listenerKey.id(), heldTunnelled).request());
        assertThat(both.holdUntilConfirmed()).isTrue();
        assertThat(both.inBandEndOfStream()).isTrue();
        assertThat(both.provesKey()).isTrue();
    }

    @Test
    void anAcceptWithAnAnswerRoundTripsAndLeavesWhatFollows() throws Exception {
        byte[] answer = new byte[49];
        new SecureRandom().nextBytes(answer);
        for (boolean inBand : new boolean[] {false, true}) {
            byte[] accept = IdentityHandshake.encodeAccept(inBand, answer);
            assertThat(accept[5] & 0xff)
                    .isEqualTo(IdentityHandshake.KEY_PROOF | (inBand ? IdentityHandshake.IN_BAND_END_OF_STREAM : 0));
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            wire.write(accept);
            wire.write("application".getBytes(StandardCharsets.US_ASCII));
            InputStream in = new ByteArrayInputStream(wire.toByteArray());
            Reply reply = IdentityHandshake.readReply(in);
            assertThat(reply.answer()).isEqualTo(Answer.ACCEPT);
            assertThat(reply.keyAnswer()).isEqualTo(answer);
            assertThat(reply.inBandEndOfStream()).isEqualTo(inBand);
            assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).isEqualTo("application");
        }
        // Without the bit, ACCEPT is the eight bytes of before.
        assertThat(IdentityHandshake.readReply(new ByteArrayInputStream(IdentityHandshake.encodeAccept()))
                        .keyAnswer())
                .isNull();
        // The bit goes with ACCEPT only.
        assertThatThrownBy(() -> IdentityHandshake.decodeReply(
                        Answer.REFUSED.code | IdentityHandshake.KEY_PROOF, ByteBuffer.wrap(new byte[] {0, 1, 1})))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("ACCEPT only");
    }

    @Test
    void aProbeOrAnAnonymousSourceCarriesNoProof() {
        byte[] probe = IdentityHandshake.encode(new Request(Kind.PROBE, 80, target, source));
        byte[] withBit = IdentityHandshake.withKeyOffer(probe, new byte[] {1});
        assertThatThrownBy(() -> decode(withBit))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("PROBE");
        byte[] idless = IdentityHandshake.encode(
                new Request(Kind.CONNECT, 80, target, NodeIdentity.parse("tv1.a10-0-0-3p5001")));
        assertThatThrownBy(() -> decode(IdentityHandshake.withKeyOffer(idless, new byte[] {1})))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("named source");
        byte[] anonymous = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, target, null));
        assertThatThrownBy(() -> decode(IdentityHandshake.withKeyOffer(anonymous, new byte[] {1})))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("named source");
    }

    @Test
    void truncatedAndOversizedOfferAndAnswerLengthsAreProtocolErrors() throws Exception {
        byte[] sent = HandshakeProof.offer(
                        client,
                        listenerKey.id(),
                        IdentityHandshake.encode(new Request(Kind.CONNECT, 80, target, source)))
                .request();
        int code = sent[5] & 0xff;
        for (int cut = IdentityHandshake.HEADER_LENGTH; cut < sent.length; cut++) {
            ByteBuffer body = ByteBuffer.wrap(Arrays.copyOfRange(sent, IdentityHandshake.HEADER_LENGTH, cut));
            assertThatThrownBy(() -> IdentityHandshake.decodeRequest(code, body))
                    .as("cut at %d", cut)
                    .isInstanceOf(ProtocolException.class);
        }
        int offerAt = sent.length - decode(sent).keyOffer().length - 2;
        for (int length : new int[] {0, IdentityHandshake.MAX_KEY_MESSAGE + 1, 0xffff}) {
            byte[] bad = sent.clone();
            ByteBuffer.wrap(bad).putShort(offerAt, (short) length);
            assertThatThrownBy(() -> decode(bad))
                    .as("offer length %d", length)
                    .isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("key offer length " + length);
        }
        byte[] longer = sent.clone();
        ByteBuffer.wrap(longer).putShort(offerAt, (short) (decode(sent).keyOffer().length + 1));
        assertThatThrownBy(() -> decode(longer))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("runs past the body");

        byte[] accept = IdentityHandshake.encodeAccept(false, new byte[160]);
        for (int length : new int[] {0, IdentityHandshake.MAX_KEY_MESSAGE + 1, 0xffff, 161}) {
            byte[] bad = accept.clone();
            ByteBuffer.wrap(bad).putShort(IdentityHandshake.HEADER_LENGTH, (short) length);
            assertThatThrownBy(() -> IdentityHandshake.readReply(new ByteArrayInputStream(bad)))
                    .as("answer length %d", length)
                    .isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("key answer length " + length);
        }
        for (int cut = IdentityHandshake.HEADER_LENGTH; cut < accept.length; cut++) {
            ByteBuffer body = ByteBuffer.wrap(Arrays.copyOfRange(accept, IdentityHandshake.HEADER_LENGTH, cut));
            assertThatThrownBy(() -> IdentityHandshake.decodeReply(IdentityHandshake.KEY_PROOF, body))
                    .as("answer cut at %d", cut)
                    .isInstanceOf(ProtocolException.class);
        }
    }

    @Test
    void bothSidesProveFullThenResumedAndTheFinishedChecks() throws Exception {
        for (boolean resumed : new boolean[] {false, true}) {
            byte[] request = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, target, source));
            HandshakeProof.Client offer = HandshakeProof.offer(client, listenerKey.id(), request);
            assertThat(offer.resumed()).isEqualTo(resumed);
            Request arrived = decode(offer.request());
            HandshakeProof.Accepted accepted = HandshakeProof.answer(listener, clientKey.id(), arrived);
            assertThat(accepted.full()).isEqualTo(!resumed);
            Reply reply =
                    IdentityHandshakeTest.decodeReplyFrame(IdentityHandshake.encodeAccept(false, accepted.answer()));
            byte[] finished = offer.complete(reply.keyAnswer());
            assertThat(accepted.finishedLength()).isEqualTo(finished.length);
            if (resumed) {
                assertThat(finished).isEmpty(); // the offer was the proof: nothing more to send
                continue;
            }
            assertThat(finished).hasSize(HandshakeProof.FINISHED_LENGTH);
            assertThat(accepted.checkFinished(finished)).isTrue();
            byte[] flipped = finished.clone();
            flipped[3] ^= 1;
            assertThat(accepted.checkFinished(flipped)).isFalse();
        }
    }

    @Test
    void aResumedRequestIsAdmittedOnceAndItsCopyRefusedAtTheRequest() throws Exception {
        byte[] request = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, target, source));
        HandshakeProof.Client first = HandshakeProof.offer(client, listenerKey.id(), request);
        HandshakeProof.Accepted full = HandshakeProof.answer(listener, clientKey.id(), decode(first.request()));
        assertThat(full.checkFinished(first.complete(full.answer()))).isTrue();
        // Resumed offers made at once arrive out of order: each is admitted once, in any order.
        List<HandshakeProof.Client> offers = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            offers.add(HandshakeProof.offer(client, listenerKey.id(), request));
        }
        Collections.shuffle(offers, new Random(7));
        for (HandshakeProof.Client resumed : offers) {
            assertThat(resumed.resumed()).isTrue();
            HandshakeProof.Accepted accepted =
                    HandshakeProof.answer(listener, clientKey.id(), decode(resumed.request()));
            assertThat(resumed.complete(accepted.answer())).isEmpty();
        }
        for (HandshakeProof.Client resumed : offers.subList(0, 5)) {
            assertThatThrownBy(() -> HandshakeProof.answer(listener, clientKey.id(), decode(resumed.request())))
                    .isInstanceOf(PeerSessions.SealFailure.class)
                    .hasMessageContaining("replayed");
        }
        // An answer for another offer does not prove this one.
        HandshakeProof.Client a = HandshakeProof.offer(client, listenerKey.id(), request);
        HandshakeProof.Client b = HandshakeProof.offer(client, listenerKey.id(), request);
        HandshakeProof.Accepted forB = HandshakeProof.answer(listener, clientKey.id(), decode(b.request()));
        assertThatThrownBy(() -> a.complete(forB.answer())).isInstanceOf(PeerSessions.SealFailure.class);
    }

    @Test
    void anOfferMovedToAnotherRequestOrReplayedCannotBeFinished() throws Exception {
        byte[] request = IdentityHandshake.encode(new Request(Kind.CONNECT, 80, target, source));
        HandshakeProof.Client offer = HandshakeProof.offer(client, listenerKey.id(), request);
        // The same offer on a request for another port: the context differs, the signature fails.
        byte[] otherPort = IdentityHandshake.encode(new Request(Kind.CONNECT, 81, target, source));
        Request moved = decode(IdentityHandshake.withKeyOffer(
                otherPort, decode(offer.request()).keyOffer()));
        assertThatThrownBy(() -> HandshakeProof.answer(listener, clientKey.id(), moved))
                .isInstanceOf(PeerSessions.SealFailure.class)
                .hasMessageContaining("does not verify");
        // A replay of the honest full request is answered (nonces are fresh) but the old Finished fails.
        Request arrived = decode(offer.request());
        HandshakeProof.Accepted first = HandshakeProof.answer(listener, clientKey.id(), arrived);
        byte[] finished = offer.complete(first.answer());
        assertThat(first.checkFinished(finished)).isTrue();
        HandshakeProof.Accepted replayed = HandshakeProof.answer(listener, clientKey.id(), decode(offer.request()));
        assertThat(replayed.checkFinished(finished)).isFalse();
        // Another key under this client's id: refused.
        PeerSessions impostor = new PeerSessions(IdentityKey.generate(), new SecureRandom());
        Request posing =
                decode(HandshakeProof.offer(impostor, listenerKey.id(), request).request());
        assertThatThrownBy(() -> HandshakeProof.answer(listener, clientKey.id(), posing))
                .isInstanceOf(PeerSessions.SealFailure.class);
    }
}
