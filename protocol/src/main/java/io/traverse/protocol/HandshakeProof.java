package io.traverse.protocol;

import io.traverse.identity.NodeId;
import io.traverse.security.ConnectionSeal;
import io.traverse.security.PeerSessions;
import io.traverse.security.PeerSessions.SealFailure;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;

/**
 * The key proof of an identity handshake on a kernel socket ({@link IdentityHandshake#KEY_PROOF}):
 * both nodes prove that they hold the key behind the id they state, with the same
 * {@link PeerSessions} agreement as relayed connections, in the handshake's one round trip.
 *
 * <ol>
 *   <li>The client's request carries an offer bound to the request ({@link IdentityHandshake#proofContext}).
 *   <li>The listener answers it in its ACCEPT: a full answer is signed by the listener's key, a
 *       resumed one proves the kept secret, both over the client's fresh nonce.
 *   <li>The client completes the offer, which checks the listener. After a full agreement
 *       (first contact) it sends the {@link #FINISHED_LENGTH}-byte Finished: the AES-GCM tag of an
 *       empty message sealed at offset 0 with the connection's key toward the listener. Those keys
 *       come from the secret and both sides' fresh nonces, so a Finished proves that the client
 *       holds its key now, and a full request replayed on another socket cannot be finished.
 * </ol>
 *
 * A resumed request needs no Finished, and the listener hands its connection over on the ACCEPT
 * as before the key proof: its offer proves the kept secret, and the count at the head of its
 * nonce is admitted once ({@code PeerSessions}), so a copy of it is refused at the request. This
 * keeps the cached path, the common one, at the handshake's one round trip.
 *
 * The seal serves only the proof: the connection stays a kernel socket in clear. Documented in
 * docs/protocol.md ("Key proof") and docs/security.md.
 */
public final class HandshakeProof {
    /** Bytes of the client's Finished. */
    public static final int FINISHED_LENGTH = ConnectionSeal.OVERHEAD;

    private static final byte[] NO_FINISHED = new byte[0];

    private HandshakeProof() {}

    /** The client's side of one request: its offer, then the check of the answer. */
    public static final class Client {
        private final NodeId target;
        private final PeerSessions.Offer offer;
        private final byte[] request;

        private Client(NodeId target, PeerSessions.Offer offer, byte[] request) {
            this.target = target;
            this.offer = offer;
            this.request = request;
        }

        /** The encoded request with the offer, to send. */
        public byte[] request() {
            return request;
        }

        /** True if the offer resumes a kept secret (no asymmetric cryptography). */
        public boolean resumed() {
            return offer.resumed();
        }

        public NodeId target() {
            return target;
        }

        /**
         * The length of the ACCEPT that answers this offer where it is known before it comes (a
         * resumed offer: header, u16 length and the resumed answer), 0 otherwise.
         */
        public int acceptLength() {
            return offer.resumed() ? IdentityHandshake.HEADER_LENGTH + 2 + PeerSessions.RESUMED_ANSWER_LENGTH : 0;
        }

        /**
         * Checks the listener's answer (it holds the target's key, or the resumed secret) and
         * returns the Finished to send: {@link #FINISHED_LENGTH} bytes after a full agreement, none
         * when resumed.
         *
         * @throws SealFailure if the answer does not prove it
         */
        public byte[] complete(byte[] keyAnswer) throws SealFailure {
            if (offer.resumed()) {
                offer.prove(keyAnswer);
                return NO_FINISHED;
            }
            return finished(offer.complete(keyAnswer));
        }
    }

    /** The listener's side of one request: the answer for its ACCEPT and the check of the Finished. */
    public static final class Accepted {
        private final PeerSessions.Answer answer;

        private Accepted(PeerSessions.Answer answer) {
            this.answer = answer;
        }

        /** The key answer for the ACCEPT. */
        public byte[] answer() {
            return answer.bytes();
        }

        /** True for a full agreement: the client then owes a Finished ({@link #finishedLength()}). */
        public boolean full() {
            return answer.full();
        }

        /** The bytes of Finished the client sends after the ACCEPT: {@link #FINISHED_LENGTH}, or 0 when resumed. */
        public int finishedLength() {
            return full() ? FINISHED_LENGTH : 0;
        }

        /** True if {@code finished} is the Finished of this connection's client (a full agreement's). */
        public boolean checkFinished(byte[] finished) {
            if (!full() || finished == null || finished.length != FINISHED_LENGTH) {
                return false;
            }
            try {
                answer.seal().open(0, ByteBuffer.wrap(finished), ByteBuffer.allocate(0));
                return true;
            } catch (GeneralSecurityException e) {
                return false;
            }
        }
    }

    /**
     * Makes the offer for an encoded request to {@code target} (the id the request expects).
     *
     * @param request encoded, without an offer, every other flag set as it will be sent; its
     *     source must be this node (the offer is made as this node)
     */
    public static Client offer(PeerSessions sessions, NodeId target, byte[] request) {
        PeerSessions.Offer offer = sessions.offer(target, IdentityHandshake.proofContext(request));
        return new Client(target, offer, IdentityHandshake.withKeyOffer(request, offer.bytes()));
    }

    /**
     * Answers the offer of a decoded request from {@code source} (its stated id).
     *
     * @throws SealFailure if the offer does not prove the source's key or a kept secret
     *     ({@link SealFailure#unknownSession()}: one this node does not keep)
     */
    public static Accepted answer(PeerSessions sessions, NodeId source, IdentityHandshake.Request request)
            throws SealFailure {
        byte[] context =
                request.proofContext() != null ? request.proofContext() : IdentityHandshake.proofContext(request);
        return new Accepted(sessions.answer(source, context, request.keyOffer()));
    }

    /** The Finished for a seal: the tag of an empty message at offset 0 toward the listener. */
    static byte[] finished(ConnectionSeal seal) {
        ByteBuffer out = ByteBuffer.allocate(FINISHED_LENGTH);
        try {
            seal.seal(0, ByteBuffer.allocate(0), out);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM failed to seal an empty message", e);
        }
        return out.array();
    }
}
