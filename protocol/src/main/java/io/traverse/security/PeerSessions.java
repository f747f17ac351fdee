package io.traverse.security;

import io.traverse.identity.NodeId;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.generators.HKDFBytesGenerator;
import org.bouncycastle.crypto.params.HKDFParameters;
import org.bouncycastle.math.ec.rfc7748.X25519;
import org.bouncycastle.math.ec.rfc8032.Ed25519;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keys that two nodes agree on end to end, through whatever relays the messages, and keep per
 * peer, as TLS keeps a session for resumption. The first connection between two nodes is a
 * <b>full</b> agreement: each side sends an ephemeral X25519 key and signs the exchange with its
 * Ed25519 identity key, whose hash must be the id the other side asked for. Both algorithms are
 * Bouncy Castle's, which sign, verify and agree 2-7 times faster than the JDK 17's own
 * (docs/benchmarks.md, "End-to-end encryption"). Both keep the secret
 * it gives. Later connections between them, either way round, are <b>resumed</b>: each side
 * proves the kept secret with an HMAC over fresh nonces, and the connection's keys come from the
 * secret and those nonces (HKDF-SHA256), so only first contact pays for asymmetric cryptography.
 *
 * <p>A relay sees the messages and can drop or repeat them, but cannot learn the keys or pass a
 * proof off for another connection: each proof covers the connection's context (its id and
 * port), both node ids and the nonces. Resumed connections have no forward secrecy of their own
 * (as TLS 1.3's PSK-only resumption): whoever learns a kept secret can read the connections
 * resumed from it. The secret lives in memory only, for at most {@link #MAX_SESSIONS} peers.
 *
 * <p>Wire forms (docs/protocol.md, "End-to-end encryption"), all lengths in bytes:
 * <pre>
 * full offer:     1 | len | opener's Ed25519 key (X.509) | len | ephemeral X25519 key (32) | nonce 16 | len | signature (64)
 * full answer:    1 | len | acceptor's Ed25519 key       | len | ephemeral X25519 key      | nonce 16 | len | signature
 * resumed offer:  2 | session id 16 | nonce 16 | HMAC-SHA256 32
 * resumed answer: 2 | nonce 16 | HMAC-SHA256 32
 * </pre>
 *
 * A resumed offer's nonce begins with a count (u64) of the offers its opener made on the session,
 * then 8 random bytes. The acceptor admits each count once, within a window of the
 * {@link ReplayWindow#SIZE} below the highest it saw: a resumed offer copied onto another
 * connection is refused at once, with no further round trip. A full offer has no count; a
 * handshake that must refuse its copies confirms it with a round trip of its own
 * ({@code HandshakeProof}'s Finished).
 */
public final class PeerSessions {
    private static final Logger log = LoggerFactory.getLogger(PeerSessions.class);
    /** Set once a node of this JVM started {@link #prepareInBackground}. */
    private static final AtomicBoolean WARMED = new AtomicBoolean();
    /** Peers whose secret is kept; the least recently used goes first. */
    public static final int MAX_SESSIONS = 4096;
    /** Session ids that resume, the peers' latest and those they replaced; the oldest goes first. */
    public static final int MAX_SESSION_IDS = 4 * MAX_SESSIONS;
    /** The length of the answer to a resumed offer: its mode, the acceptor's nonce and its MAC. */
    public static final int RESUMED_ANSWER_LENGTH = 1 + 16 + 32;

    static final int FULL = 1;
    static final int RESUMED = 2;
    private static final int NONCE = 16;
    private static final int SESSION_ID = 16;
    private static final int MAC = 32;
    private static final int KEY = 16;
    private static final int MAX_FIELD = 255;

    /** One HMAC-SHA256 per thread: the JCA look-up is a good part of a resumed proof's cost. */
    private static final ThreadLocal<KeyedMac> MACS = ThreadLocal.withInitial(KeyedMac::new);

    private static final byte[] RESUME_OFFER = label("traverse seal resume offer 1");
    private static final byte[] RESUME_ANSWER = label("traverse seal resume answer 1");

    /** The X.509 encoding of an Ed25519 public key: these 12 bytes, then the key's 32. */
    private static final byte[] ED25519_X509_PREFIX = {
        0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00
    };

    private final IdentityKey key;
    private final SecureRandom random;
    private final byte[] ownKeyEncoded;
    private final byte[] ownSeed;
    /** Guarded by itself; access order, so the least recently used falls out first. */
    private final Map<NodeId, Session> byPeer = new LinkedHashMap<>(64, 0.75f, true);
    /** Guarded by {@link #byPeer}. */
    private final Map<SessionId, Session> byId = new LinkedHashMap<>();

    /** What two nodes keep after a full agreement. */
    private record Session(NodeId peer, SessionId id, byte[] secret, AtomicLong offersMade, ReplayWindow offersSeen) {
        Session(NodeId peer, SessionId id, byte[] secret) {
            this(peer, id, secret, new AtomicLong(), new ReplayWindow());
        }
    }

    /** A session id as a map key (arrays compare by identity). */
    private record SessionId(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof SessionId other && MessageDigest.isEqual(bytes, other.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }

        @Override
        public String toString() {
            return "SessionId";
        }
    }

    public PeerSessions(IdentityKey key, SecureRandom random) {
        this.key = key;
        this.random = random;
        this.ownKeyEncoded = key.publicKey().getEncoded();
        this.ownSeed = key.seed();
    }

    /**
     * Runs one full agreement between two throwaway copies of this node's sessions (same key) on a
     * daemon thread, so that a fresh JVM loads and sets up the asymmetric code (Bouncy Castle's
     * Ed25519 and X25519, their tables) beside its start, not inside its first connection's
     * handshake. Keeps nothing in these sessions. Once per JVM: the code stays loaded for every
     * node after the first.
     */
    public void prepareInBackground() {
        if (!WARMED.compareAndSet(false, true)) {
            return;
        }
        Thread warmer = new Thread(
                () -> {
                    PeerSessions opener = new PeerSessions(key, random);
                    PeerSessions acceptor = new PeerSessions(key, random);
                    byte[] context = label("traverse warm-up");
                    try {
                        Offer offer = opener.offer(key.id(), context);
                        offer.complete(acceptor.answer(key.id(), context, offer.bytes())
                                .bytes());
                    } catch (SealFailure | RuntimeException e) {
                        log.debug("The key agreement warm-up failed", e);
                    }
                },
                "traverse-key-warm-up");
        warmer.setDaemon(true);
        warmer.start();
    }

    public NodeId localId() {
        return key.id();
    }

    /** True if a secret with {@code peer} is kept: the next offer to it is resumed. */
    public boolean knows(NodeId peer) {
        synchronized (byPeer) {
            return byPeer.containsKey(peer);
        }
    }

    /** Drops the secret kept with {@code peer} (it answered that it no longer knows it). */
    public void forget(NodeId peer) {
        synchronized (byPeer) {
            Session s = byPeer.remove(peer);
            if (s != null) {
                byId.remove(s.id());
            }
        }
    }

    /**
     * The opener's first message for a connection to {@code acceptor}: resumed if a secret with it
     * is kept, full otherwise.
     *
     * @param context what names the connection, the same at both ends (e.g. its id and port)
     */
    public Offer offer(NodeId acceptor, byte[] context) {
        Session kept;
        synchronized (byPeer) {
            kept = byPeer.get(acceptor);
        }
        byte[] nonce = randomBytes(NONCE);
        if (kept != null) {
            // The nonce's first 8 bytes count this node's offers on the session: the acceptor admits
            // each count once (ReplayWindow), so a copied offer is refused without a round trip.
            ByteBuffer.wrap(nonce).putLong(kept.offersMade().incrementAndGet());
            byte[] mac = mac(
                    kept.secret(),
                    RESUME_OFFER,
                    context,
                    key.id(),
                    acceptor,
                    kept.id().bytes(),
                    nonce);
            ByteBuffer b = ByteBuffer.allocate(1 + SESSION_ID + NONCE + MAC);
            b.put((byte) RESUMED).put(kept.id().bytes()).put(nonce).put(mac);
            return new Offer(acceptor, context, b.array(), nonce, kept, null);
        }
        Ephemeral ephemeral = ephemeral();
        byte[] ephemeralEncoded = ephemeral.publicKey();
        byte[] signature = sign(signed("traverse seal offer 1", context, key.id(), acceptor, ephemeralEncoded, nonce));
        ByteBuffer b = ByteBuffer.allocate(
                1 + 1 + ownKeyEncoded.length + 1 + ephemeralEncoded.length + NONCE + 1 + signature.length);
        b.put((byte) FULL);
        putField(b, ownKeyEncoded);
        putField(b, ephemeralEncoded);
        b.put(nonce);
        putField(b, signature);
        return new Offer(acceptor, context, b.array(), nonce, null, ephemeral);
    }

    /**
     * The acceptor's side: checks {@code offer} from {@code opener} and answers it.
     *
     * @throws SealFailure if the offer is malformed, its proof fails, or it resumes a secret this node does not keep
     */
    public Answer answer(NodeId opener, byte[] context, byte[] offer) throws SealFailure {
        try {
            ByteBuffer in = ByteBuffer.wrap(offer);
            int mode = in.get() & 0xff;
            if (mode == RESUMED) {
                return answerResumed(opener, context, in);
            }
            if (mode != FULL) {
                throw new SealFailure("unknown key agreement mode " + mode + " from node " + opener, false);
            }
            byte[] openerKey = field(in);
            byte[] openerEphemeral = field(in);
            byte[] openerNonce = take(in, NONCE);
            byte[] signature = field(in);
            requireEnd(in, opener);
            verify(
                    opener,
                    openerKey,
                    signature,
                    signed("traverse seal offer 1", context, opener, key.id(), openerEphemeral, openerNonce));
            Ephemeral ephemeral = ephemeral();
            byte[] ephemeralEncoded = ephemeral.publicKey();
            byte[] nonce = randomBytes(NONCE);
            byte[] answerSignature =
                    sign(signed("traverse seal answer 1", context, opener, key.id(), offer, ephemeralEncoded, nonce));
            byte[] secret =
                    secret(ephemeral, openerEphemeral, opener, key.id(), openerNonce, nonce, offer, ephemeralEncoded);
            keep(opener, secret);
            ByteBuffer b = ByteBuffer.allocate(
                    1 + 1 + ownKeyEncoded.length + 1 + ephemeralEncoded.length + NONCE + 1 + answerSignature.length);
            b.put((byte) FULL);
            putField(b, ownKeyEncoded);
            putField(b, ephemeralEncoded);
            b.put(nonce);
            putField(b, answerSignature);
            return new Answer(
                    b.array(), () -> sealFor(false, secret, context, opener, key.id(), openerNonce, nonce), true);
        } catch (BufferUnderflowException e) {
            throw new SealFailure("a truncated key agreement offer from node " + opener, false);
        }
    }

    private Answer answerResumed(NodeId opener, byte[] context, ByteBuffer in) throws SealFailure {
        SessionId id = new SessionId(take(in, SESSION_ID));
        byte[] openerNonce = take(in, NONCE);
        byte[] mac = take(in, MAC);
        requireEnd(in, opener);
        Session kept;
        synchronized (byPeer) {
            kept = byId.get(id);
            if (kept != null) {
                byPeer.get(kept.peer()); // touch: recently used
            }
        }
        if (kept == null || !kept.peer().equals(opener)) {
            throw new SealFailure("node " + opener + " resumed a key agreement this node does not keep", true);
        }
        byte[] expected = mac(kept.secret(), RESUME_OFFER, context, opener, key.id(), id.bytes(), openerNonce);
        if (!MessageDigest.isEqual(expected, mac)) {
            throw new SealFailure("node " + opener + " failed to prove the key agreement it resumed", false);
        }
        if (!kept.offersSeen().admit(ByteBuffer.wrap(openerNonce).getLong())) {
            throw new SealFailure(
                    "node " + opener + "'s resumed offer was replayed (its count was seen, or is too old)", false);
        }
        byte[] nonce = randomBytes(NONCE);
        byte[] answerMac = mac(kept.secret(), RESUME_ANSWER, context, opener, key.id(), openerNonce, nonce);
        ByteBuffer b = ByteBuffer.allocate(RESUMED_ANSWER_LENGTH);
        b.put((byte) RESUMED).put(nonce).put(answerMac);
        return new Answer(
                b.array(), () -> sealFor(false, kept.secret(), context, opener, key.id(), openerNonce, nonce), false);
    }

    /** The opener's first message and what it needs to check the answer. */
    public final class Offer {
        private final NodeId acceptor;
        private final byte[] context;
        private final byte[] bytes;
        private final byte[] nonce;
        private final Session resumed;
        private final Ephemeral ephemeral;

        private Offer(
                NodeId acceptor, byte[] context, byte[] bytes, byte[] nonce, Session resumed, Ephemeral ephemeral) {
            this.acceptor = acceptor;
            this.context = context.clone();
            this.bytes = bytes;
            this.nonce = nonce;
            this.resumed = resumed;
            this.ephemeral = ephemeral;
        }

        /** The bytes to send. */
        public byte[] bytes() {
            return bytes.clone();
        }

        /** True if this offer resumes a kept secret (no asymmetric cryptography). */
        public boolean resumed() {
            return resumed != null;
        }

        /**
         * Checks the acceptor's answer, as {@link #complete} does, where the connection needs no
         * seal: a resumed answer is then only checked, and no keys are derived.
         *
         * @throws SealFailure as {@link #complete}
         */
        public void prove(byte[] answer) throws SealFailure {
            if (resumed == null) {
                complete(answer); // keeps the agreed secret
                return;
            }
            try {
                ByteBuffer in = ByteBuffer.wrap(answer);
                checkResumed(in, in.get() & 0xff);
            } catch (BufferUnderflowException e) {
                throw new SealFailure("a truncated key agreement answer from node " + acceptor, false);
            }
        }

        /** Checks a resumed answer's proof of the kept secret; the acceptor's nonce. */
        private byte[] checkResumed(ByteBuffer in, int mode) throws SealFailure {
            if (mode != RESUMED) {
                throw new SealFailure(
                        "node " + acceptor + " answered a resumed key agreement with mode " + mode, false);
            }
            byte[] acceptorNonce = take(in, NONCE);
            byte[] mac = take(in, MAC);
            requireEnd(in, acceptor);
            byte[] expected = mac(resumed.secret(), RESUME_ANSWER, context, key.id(), acceptor, nonce, acceptorNonce);
            if (!MessageDigest.isEqual(expected, mac)) {
                throw new SealFailure("node " + acceptor + " failed to prove the key agreement it resumed", false);
            }
            return acceptorNonce;
        }

        /**
         * Checks the acceptor's answer and gives the connection's seal.
         *
         * @throws SealFailure if the answer is malformed, of the other mode, or its proof fails
         *         (a full answer must be signed by the key whose hash is the acceptor's id)
         */
        public ConnectionSeal complete(byte[] answer) throws SealFailure {
            NodeId opener = key.id();
            try {
                ByteBuffer in = ByteBuffer.wrap(answer);
                int mode = in.get() & 0xff;
                if (resumed != null) {
                    byte[] acceptorNonce = checkResumed(in, mode);
                    return sealFor(true, resumed.secret(), context, opener, acceptor, nonce, acceptorNonce);
                }
                if (mode != FULL) {
                    throw new SealFailure(
                            "node " + acceptor + " answered a full key agreement with mode " + mode, false);
                }
                byte[] acceptorKey = field(in);
                byte[] acceptorEphemeral = field(in);
                byte[] acceptorNonce = take(in, NONCE);
                byte[] signature = field(in);
                requireEnd(in, acceptor);
                verify(
                        acceptor,
                        acceptorKey,
                        signature,
                        signed(
                                "traverse seal answer 1",
                                context,
                                opener,
                                acceptor,
                                bytes,
                                acceptorEphemeral,
                                acceptorNonce));
                byte[] secret = secret(
                        ephemeral, acceptorEphemeral, opener, acceptor, nonce, acceptorNonce, bytes, acceptorEphemeral);
                keep(acceptor, secret);
                return sealFor(true, secret, context, opener, acceptor, nonce, acceptorNonce);
            } catch (BufferUnderflowException e) {
                throw new SealFailure("a truncated key agreement answer from node " + acceptor, false);
            }
        }
    }

    /** The acceptor's answer to send, and the connection's seal. */
    public static final class Answer {
        private final byte[] bytes;
        private final Supplier<ConnectionSeal> derive;
        private final boolean full;
        private ConnectionSeal seal;

        Answer(byte[] bytes, Supplier<ConnectionSeal> derive, boolean full) {
            this.bytes = bytes;
            this.derive = derive;
            this.full = full;
        }

        public byte[] bytes() {
            return bytes;
        }

        /**
         * The connection's seal, derived on first use: a handshake that only proves keys (a kernel
         * socket, resumed) never needs one, and skips the HKDF and the ciphers.
         */
        public synchronized ConnectionSeal seal() {
            if (seal == null) {
                seal = derive.get();
            }
            return seal;
        }

        /** True for a full agreement (first contact), false for a resumed one. */
        public boolean full() {
            return full;
        }
    }

    /** An offer or answer that fails: the connection must not go on. */
    public static final class SealFailure extends GeneralSecurityException {
        private static final long serialVersionUID = 1L;
        private final boolean unknownSession;

        SealFailure(String message, boolean unknownSession) {
            super(message);
            this.unknownSession = unknownSession;
        }

        /** True if the offer resumed a secret the acceptor does not keep: a full offer will do. */
        public boolean unknownSession() {
            return unknownSession;
        }
    }

    // ---- the pieces ---------------------------------------------------------------------------

    /**
     * Keeps the secret of a full agreement as the one to resume with {@code peer}. The secrets it
     * replaces stay resumable by their session id (at most {@link #MAX_SESSION_IDS} in all): two
     * full agreements that ran at once may complete in one order at one end and in the other at
     * the other end, so each end's latest may be the other's older one; and a replayed full offer,
     * which makes this end keep a secret nobody else has, must not make the real one unknown.
     */
    private void keep(NodeId peer, byte[] secret) {
        SessionId id = new SessionId(hkdf(secret, new byte[0], label("traverse seal session id 1"), SESSION_ID));
        Session session = new Session(peer, id, secret);
        synchronized (byPeer) {
            byPeer.put(peer, session);
            byId.put(id, session);
            if (byPeer.size() > MAX_SESSIONS) {
                NodeId eldest = byPeer.keySet().iterator().next();
                byId.remove(byPeer.remove(eldest).id());
            }
            while (byId.size() > MAX_SESSION_IDS) {
                byId.remove(byId.keySet().iterator().next());
            }
        }
    }

    /**
     * The connection's seal: two AES keys from the kept secret and both nonces, the first toward
     * the acceptor; the opener sends with it.
     */
    private static ConnectionSeal sealFor(
            boolean asOpener,
            byte[] secret,
            byte[] context,
            NodeId opener,
            NodeId acceptor,
            byte[] openerNonce,
            byte[] acceptorNonce) {
        byte[] keys = hkdf(
                secret,
                concat(openerNonce, acceptorNonce),
                signed("traverse seal keys 1", context, opener, acceptor),
                2 * KEY);
        byte[] towardAcceptor = Arrays.copyOfRange(keys, 0, KEY);
        byte[] towardOpener = Arrays.copyOfRange(keys, KEY, 2 * KEY);
        return asOpener
                ? new ConnectionSeal(towardAcceptor, towardOpener)
                : new ConnectionSeal(towardOpener, towardAcceptor);
    }

    /** The secret a full agreement gives: HKDF over the X25519 result, bound to both ids, both nonces and the whole exchange. */
    private static byte[] secret(
            Ephemeral own,
            byte[] peerEphemeral,
            NodeId opener,
            NodeId acceptor,
            byte[] openerNonce,
            byte[] acceptorNonce,
            byte[] offer,
            byte[] acceptorEphemeral)
            throws SealFailure {
        byte[] shared = new byte[X25519.POINT_SIZE];
        if (peerEphemeral.length != X25519.POINT_SIZE
                || !X25519.calculateAgreement(own.privateKey(), 0, peerEphemeral, 0, shared, 0)) {
            // calculateAgreement refuses a low-order point (an all-zero result).
            throw new SealFailure("an unusable X25519 key from the other node", false);
        }
        byte[] transcript = sha256(signed("traverse seal transcript 1", offer, acceptorEphemeral));
        return hkdf(
                shared,
                concat(openerNonce, acceptorNonce),
                signed("traverse seal secret 1", transcript, opener, acceptor),
                32);
    }

    /** An X25519 key pair for one agreement. */
    private record Ephemeral(byte[] privateKey, byte[] publicKey) {}

    private Ephemeral ephemeral() {
        byte[] privateKey = new byte[X25519.SCALAR_SIZE];
        X25519.generatePrivateKey(random, privateKey);
        byte[] publicKey = new byte[X25519.POINT_SIZE];
        X25519.generatePublicKey(privateKey, 0, publicKey, 0);
        return new Ephemeral(privateKey, publicKey);
    }

    private byte[] sign(byte[] message) {
        byte[] signature = new byte[Ed25519.SIGNATURE_SIZE];
        Ed25519.sign(ownSeed, 0, message, 0, message.length, signature, 0);
        return signature;
    }

    /** Checks that {@code encodedKey} is the key of {@code who} (its id is the key's hash) and that it signed {@code message}. */
    private static void verify(NodeId who, byte[] encodedKey, byte[] signature, byte[] message) throws SealFailure {
        if (encodedKey.length != ED25519_X509_PREFIX.length + Ed25519.PUBLIC_KEY_SIZE
                || !Arrays.equals(
                        encodedKey,
                        0,
                        ED25519_X509_PREFIX.length,
                        ED25519_X509_PREFIX,
                        0,
                        ED25519_X509_PREFIX.length)) {
            throw new SealFailure("node " + who + " sent no usable Ed25519 key", false);
        }
        NodeId keyId = IdentityKey.idOfEncoded(encodedKey);
        if (!keyId.equals(who)) {
            throw new SealFailure("the key sent for node " + who + " is the key of node " + keyId, false);
        }
        boolean good = signature.length == Ed25519.SIGNATURE_SIZE
                && Ed25519.verify(signature, 0, encodedKey, ED25519_X509_PREFIX.length, message, 0, message.length);
        if (!good) {
            throw new SealFailure("node " + who + "'s signature over the key agreement does not verify", false);
        }
    }

    /**
     * HMAC-SHA256 under {@code secret} of {@code signed(label, context, a, b)} followed by each of
     * {@code more} with its length in front: the parts go into the MAC as they are, since building
     * the message first was most of a resumed proof's cost while the code runs interpreted.
     */
    private static byte[] mac(byte[] secret, byte[] label, byte[] context, NodeId a, NodeId b, byte[]... more) {
        KeyedMac keyed = MACS.get();
        Mac mac = keyed.under(secret);
        byte[] length = keyed.length;
        update(mac, length, label);
        update(mac, length, context);
        update(mac, length, keyed.idBytes(a));
        update(mac, length, keyed.idBytes(b));
        for (byte[] m : more) {
            update(mac, length, m);
        }
        return mac.doFinal();
    }

    /**
     * A thread's HMAC-SHA256, keyed with the secret it last used: {@code doFinal} leaves it keyed,
     * so consecutive proofs under one session's secret (every cached connection to one peer) skip
     * the re-keying and its copies of the key. Also keeps the last two ids' bytes.
     */
    private static final class KeyedMac {
        private final Mac mac;
        private final byte[] length = new byte[4];
        private byte[] keyedWith;
        private final NodeId[] ids = new NodeId[2];
        private final byte[][] idBytes = new byte[2][];
        private int nextId;

        KeyedMac() {
            try {
                mac = Mac.getInstance("HmacSHA256");
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HMAC-SHA256 is part of every Java platform", e);
            }
        }

        Mac under(byte[] secret) {
            if (secret != keyedWith) { // a session's secret is one array that is never changed
                try {
                    mac.init(new SecretKeySpec(secret, "HmacSHA256"));
                } catch (GeneralSecurityException e) {
                    throw new IllegalStateException("HMAC-SHA256 takes any key", e);
                }
                keyedWith = secret;
            } else {
                mac.reset(); // costs nothing after a doFinal; a use cut short by an exception left input in it
            }
            return mac;
        }

        byte[] idBytes(NodeId id) {
            for (int i = 0; i < ids.length; i++) {
                if (id.equals(ids[i])) {
                    return idBytes[i];
                }
            }
            int i = nextId;
            nextId = (nextId + 1) % ids.length;
            ids[i] = id;
            idBytes[i] = label(id.toString());
            return idBytes[i];
        }
    }

    /** One part as {@link #lengthPrefixed} gives it, into {@code mac}; {@code length} is scratch. */
    private static void update(Mac mac, byte[] length, byte[] part) {
        int n = part.length;
        length[0] = (byte) (n >>> 24);
        length[1] = (byte) (n >>> 16);
        length[2] = (byte) (n >>> 8);
        length[3] = (byte) n;
        mac.update(length);
        mac.update(part);
    }

    private static byte[] hkdf(byte[] secret, byte[] salt, byte[] info, int length) {
        HKDFBytesGenerator generator = new HKDFBytesGenerator(new SHA256Digest());
        generator.init(new HKDFParameters(secret, salt, info));
        byte[] out = new byte[length];
        generator.generateBytes(out, 0, length);
        return out;
    }

    /** A label, then each part with its length in front, so that no two different lists give the same bytes. */
    private static byte[] signed(String label, Object... parts) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(256);
        out.writeBytes(lengthPrefixed(label(label)));
        for (Object part : parts) {
            byte[] bytes = part instanceof NodeId id ? label(id.toString()) : (byte[]) part;
            out.writeBytes(lengthPrefixed(bytes));
        }
        return out.toByteArray();
    }

    private static byte[] lengthPrefixed(byte[] bytes) {
        return ByteBuffer.allocate(4 + bytes.length)
                .putInt(bytes.length)
                .put(bytes)
                .array();
    }

    private static byte[] label(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static void putField(ByteBuffer b, byte[] field) {
        if (field.length > MAX_FIELD) {
            throw new IllegalStateException("a key agreement field of " + field.length + " bytes");
        }
        b.put((byte) field.length).put(field);
    }

    private static byte[] field(ByteBuffer in) {
        return take(in, in.get() & 0xff);
    }

    private static byte[] take(ByteBuffer in, int n) {
        byte[] b = new byte[n];
        in.get(b);
        return b;
    }

    private static void requireEnd(ByteBuffer in, NodeId from) throws SealFailure {
        if (in.hasRemaining()) {
            throw new SealFailure(in.remaining() + " bytes after the key agreement message from node " + from, false);
        }
    }
}
