package io.traverse.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.SplittableRandom;
import javax.crypto.AEADBadTagException;
import org.junit.jupiter.api.Test;

class PeerSessionsTest {
    private static final long SEED = 0x5ea1L;

    private final IdentityKey openerKey = IdentityKey.generate(seeded(1));
    private final IdentityKey acceptorKey = IdentityKey.generate(seeded(2));
    private final PeerSessions opener = new PeerSessions(openerKey, seeded(3));
    private final PeerSessions acceptor = new PeerSessions(acceptorKey, seeded(4));
    private final byte[] context = "routed 42 port 7000".getBytes(StandardCharsets.US_ASCII);

    @Test
    void aFullAgreementThenAResumedOneGiveSealsThatOpenEachOther() throws Exception {
        PeerSessions.Offer first = opener.offer(acceptorKey.id(), context);
        assertThat(first.resumed()).isFalse();
        PeerSessions.Answer firstAnswer = acceptor.answer(openerKey.id(), context, first.bytes());
        assertThat(firstAnswer.full()).isTrue();
        ConnectionSeal openerSeal = first.complete(firstAnswer.bytes());
        assertRoundTrips(openerSeal, firstAnswer.seal());

        byte[] second = "routed 43 port 7000".getBytes(StandardCharsets.US_ASCII);
        PeerSessions.Offer resumed = opener.offer(acceptorKey.id(), second);
        assertThat(resumed.resumed()).isTrue();
        PeerSessions.Answer resumedAnswer = acceptor.answer(openerKey.id(), second, resumed.bytes());
        assertThat(resumedAnswer.full()).isFalse();
        assertRoundTrips(resumed.complete(resumedAnswer.bytes()), resumedAnswer.seal());

        // The kept secret serves the other way round too, and new nonces give new keys.
        PeerSessions.Offer back = acceptor.offer(openerKey.id(), second);
        assertThat(back.resumed()).isTrue();
        PeerSessions.Answer backAnswer = opener.answer(acceptorKey.id(), second, back.bytes());
        ConnectionSeal backSeal = back.complete(backAnswer.bytes());
        assertRoundTrips(backSeal, backAnswer.seal());
        byte[] sealedByFirst = seal(openerSeal, 0, "same bytes");
        assertThatThrownBy(() -> open(backSeal, 0, sealedByFirst)).isInstanceOf(AEADBadTagException.class);
    }

    /**
     * A resumed offer and its answer, byte for byte, from seeded keys and nonces: these bytes cross
     * the wire between nodes of different releases, so a change in how the proof's HMAC is fed
     * (cached keys, pre-encoded labels) must leave them as they were (recorded from the code before
     * those caches).
     */
    @Test
    void aResumedOfferAndItsAnswerKeepTheirWireBytes() throws Exception {
        PeerSessions.Offer first = opener.offer(acceptorKey.id(), context);
        first.complete(acceptor.answer(openerKey.id(), context, first.bytes()).bytes());
        byte[] second = "routed 43 port 7000".getBytes(StandardCharsets.US_ASCII);
        PeerSessions.Offer resumed = opener.offer(acceptorKey.id(), second);
        PeerSessions.Answer answer = acceptor.answer(openerKey.id(), second, resumed.bytes());

        assertThat(HexFormat.of().formatHex(resumed.bytes()))
                .isEqualTo("027e2f3e5f4abe216cfbf6f0b0c4f975790000000000000001f0e7ddc736e5aab50bd9d7989dddb075"
                        + "8fc3a65a948f7ed8ae20d06d597fd5a5178f24615cac25e9");
        assertThat(HexFormat.of().formatHex(answer.bytes()))
                .isEqualTo("024948623047748e84049b2e4daef766a4ee692d91bb95b02643062179f77201860be30380167f877a"
                        + "205e65be53d504e3");
        resumed.complete(answer.bytes()); // and they check
    }

    @Test
    void anAcceptorWhoseKeyIsNotTheIdAskedForIsRefusedByTheOpener() throws Exception {
        IdentityKey impostor = IdentityKey.generate(seeded(5));
        PeerSessions.Offer offer = opener.offer(acceptorKey.id(), context);
        // The impostor answers for the acceptor with its own key: a well-formed answer it signed
        // (to an offer made to it), passed off as the acceptor's.
        PeerSessions.Offer toImpostor = new PeerSessions(openerKey, seeded(10)).offer(impostor.id(), context);
        byte[] impostorsAnswer = new PeerSessions(impostor, seeded(6))
                .answer(openerKey.id(), context, toImpostor.bytes())
                .bytes();
        assertThatThrownBy(() -> offer.complete(impostorsAnswer))
                .isInstanceOf(PeerSessions.SealFailure.class)
                .hasMessageContaining("the key sent for node " + acceptorKey.id())
                .hasMessageContaining("is the key of node " + impostor.id());
        assertThat(opener.knows(acceptorKey.id())).isFalse();
    }

    @Test
    void anOpenerThatStatesAnotherIdIsRefusedByTheAcceptor() {
        IdentityKey impostor = IdentityKey.generate(seeded(7));
        byte[] offer = new PeerSessions(impostor, seeded(8))
                .offer(acceptorKey.id(), context)
                .bytes();
        // It arrives in the name of the real opener.
        assertThatThrownBy(() -> acceptor.answer(openerKey.id(), context, offer))
                .isInstanceOf(PeerSessions.SealFailure.class)
                .hasMessageContaining("is the key of node " + impostor.id());
        assertThat(acceptor.knows(openerKey.id())).isFalse();
    }

    @Test
    void anOfferOrAnswerMovedToAnotherConnectionFails() throws Exception {
        PeerSessions.Offer first = opener.offer(acceptorKey.id(), context);
        byte[] other = "routed 99 port 7000".getBytes(StandardCharsets.US_ASCII);
        assertThatThrownBy(() -> acceptor.answer(openerKey.id(), other, first.bytes()))
                .isInstanceOf(PeerSessions.SealFailure.class)
                .hasMessageContaining("signature");
        first.complete(acceptor.answer(openerKey.id(), context, first.bytes()).bytes());

        PeerSessions.Offer resumed = opener.offer(acceptorKey.id(), context);
        assertThatThrownBy(() -> acceptor.answer(openerKey.id(), other, resumed.bytes()))
                .isInstanceOf(PeerSessions.SealFailure.class)
                .hasMessageContaining("failed to prove");
    }

    @Test
    void aReplayedResumedOfferIsRefusedAndTheGenuineConnectionKeepsItsKeys() throws Exception {
        PeerSessions.Offer first = opener.offer(acceptorKey.id(), context);
        first.complete(acceptor.answer(openerKey.id(), context, first.bytes()).bytes());
        PeerSessions.Offer resumed = opener.offer(acceptorKey.id(), context);
        PeerSessions.Answer genuine = acceptor.answer(openerKey.id(), context, resumed.bytes());
        ConnectionSeal openerSeal = resumed.complete(genuine.bytes());
        // A relay repeats the offer: its count was admitted already.
        assertThatThrownBy(() -> acceptor.answer(openerKey.id(), context, resumed.bytes()))
                .isInstanceOf(PeerSessions.SealFailure.class)
                .hasMessageContaining("replayed")
                .matches(e -> !((PeerSessions.SealFailure) e).unknownSession(), "not an unknown session");
        assertRoundTrips(openerSeal, genuine.seal());
        // The next offer resumes as before.
        PeerSessions.Offer next = opener.offer(acceptorKey.id(), context);
        PeerSessions.Answer answer = acceptor.answer(openerKey.id(), context, next.bytes());
        assertRoundTrips(next.complete(answer.bytes()), answer.seal());
    }

    @Test
    void twoFullAgreementsCompletedInOppositeOrdersStillResume() throws Exception {
        PeerSessions.Offer one = opener.offer(acceptorKey.id(), context);
        PeerSessions.Offer two = opener.offer(acceptorKey.id(), context);
        assertThat(one.resumed()).isFalse();
        assertThat(two.resumed()).isFalse();
        PeerSessions.Answer answerOne = acceptor.answer(openerKey.id(), context, one.bytes());
        PeerSessions.Answer answerTwo = acceptor.answer(openerKey.id(), context, two.bytes()); // the acceptor keeps two
        two.complete(answerTwo.bytes());
        one.complete(answerOne.bytes()); // the opener keeps one
        PeerSessions.Offer resumed = opener.offer(acceptorKey.id(), context);
        assertThat(resumed.resumed()).isTrue();
        PeerSessions.Answer answer = acceptor.answer(openerKey.id(), context, resumed.bytes());
        assertRoundTrips(resumed.complete(answer.bytes()), answer.seal());
    }

    @Test
    void anAcceptorThatLostTheSecretSaysSoAndAFullOfferFollows() throws Exception {
        PeerSessions.Offer first = opener.offer(acceptorKey.id(), context);
        first.complete(acceptor.answer(openerKey.id(), context, first.bytes()).bytes());
        PeerSessions restarted = new PeerSessions(acceptorKey, seeded(9)); // same key, nothing kept
        PeerSessions.Offer resumed = opener.offer(acceptorKey.id(), context);
        assertThatThrownBy(() -> restarted.answer(openerKey.id(), context, resumed.bytes()))
                .isInstanceOfSatisfying(
                        PeerSessions.SealFailure.class,
                        f -> assertThat(f.unknownSession()).isTrue());
        opener.forget(acceptorKey.id());
        PeerSessions.Offer full = opener.offer(acceptorKey.id(), context);
        assertThat(full.resumed()).isFalse();
        PeerSessions.Answer answer = restarted.answer(openerKey.id(), context, full.bytes());
        assertRoundTrips(full.complete(answer.bytes()), answer.seal());
    }

    @Test
    void malformedOffersAreRefusedWithAReasonNeverACrash() {
        byte[] good = opener.offer(acceptorKey.id(), context).bytes();
        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < 2000; i++) {
            byte[] bad = good.clone();
            switch (i % 3) {
                case 0 -> bad = java.util.Arrays.copyOf(good, random.nextInt(good.length)); // truncated
                case 1 -> bad[random.nextInt(bad.length)] ^= (byte) (1 + random.nextInt(255)); // a byte changed
                default -> {
                    bad = new byte[random.nextInt(200)];
                    random.nextBytes(bad);
                }
            }
            byte[] offer = bad;
            if (offer.length == 0) {
                assertThatThrownBy(() -> acceptor.answer(openerKey.id(), context, offer))
                        .isInstanceOf(PeerSessions.SealFailure.class);
                continue;
            }
            try {
                acceptor.answer(openerKey.id(), context, offer);
                // Every field is signed or parsed strictly: only the unchanged offer may pass.
                assertThat(offer).as("a changed offer was accepted").isEqualTo(good);
            } catch (PeerSessions.SealFailure expected) {
                assertThat(expected.getMessage()).isNotBlank();
            }
        }
    }

    @Test
    void aFrameSealedAtOneOffsetDoesNotOpenAtAnother() throws Exception {
        PeerSessions.Offer offer = opener.offer(acceptorKey.id(), context);
        PeerSessions.Answer answer = acceptor.answer(openerKey.id(), context, offer.bytes());
        ConnectionSeal a = offer.complete(answer.bytes());
        byte[] sealed = seal(a, 4096, "moved");
        assertThatThrownBy(() -> open(answer.seal(), 8192, sealed)).isInstanceOf(AEADBadTagException.class);
        byte[] changed = sealed.clone();
        changed[3] ^= 1;
        assertThatThrownBy(() -> open(answer.seal(), 4096, changed)).isInstanceOf(AEADBadTagException.class);
        assertThat(open(answer.seal(), 4096, sealed)).isEqualTo("moved");
    }

    /** Each seal's bytes open with the other, both ways, over a stream of random frames (length and SHA-256 checked). */
    private static void assertRoundTrips(ConnectionSeal one, ConnectionSeal other) throws Exception {
        SplittableRandom random = new SplittableRandom(SEED);
        for (ConnectionSeal[] pair : new ConnectionSeal[][] {{one, other}, {other, one}}) {
            MessageDigest sent = MessageDigest.getInstance("SHA-256");
            MessageDigest got = MessageDigest.getInstance("SHA-256");
            long offset = 0;
            for (int i = 0; i < 50; i++) {
                byte[] plain = new byte[1 + random.nextInt(70_000)];
                random.nextBytes(plain);
                sent.update(plain);
                ByteBuffer sealed = ByteBuffer.allocateDirect(plain.length + ConnectionSeal.OVERHEAD);
                pair[0].seal(offset, ByteBuffer.wrap(plain), sealed);
                assertThat(sealed.position()).isEqualTo(plain.length + ConnectionSeal.OVERHEAD);
                sealed.flip();
                ByteBuffer opened = ByteBuffer.allocate(plain.length);
                pair[1].open(offset, sealed, opened);
                assertThat(opened.position()).isEqualTo(plain.length);
                got.update(opened.array());
                offset += plain.length;
            }
            assertThat(got.digest()).isEqualTo(sent.digest());
        }
    }

    private static byte[] seal(ConnectionSeal seal, long offset, String text) throws Exception {
        byte[] plain = text.getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(plain.length + ConnectionSeal.OVERHEAD);
        seal.seal(offset, ByteBuffer.wrap(plain), out);
        return out.array();
    }

    private static String open(ConnectionSeal seal, long offset, byte[] sealed) throws Exception {
        ByteBuffer out = ByteBuffer.allocate(sealed.length - ConnectionSeal.OVERHEAD);
        seal.open(offset, ByteBuffer.wrap(sealed), out);
        return new String(out.array(), StandardCharsets.UTF_8);
    }

    private static SecureRandom seeded(long n) {
        try {
            SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
            random.setSeed(SEED * 31 + n);
            return random;
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
