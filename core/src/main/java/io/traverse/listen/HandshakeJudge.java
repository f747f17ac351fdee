package io.traverse.listen;

import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake;
import java.net.InetSocketAddress;

/**
 * Decides what a complete, well-formed handshake request gets. Called on whichever thread answers
 * the handshake (an application thread waiting in {@code accept()}, the acceptor or the handshake
 * thread): must not block.
 */
public interface HandshakeJudge {
    /**
     * The answer and its reason; for ACCEPT the backlog in which a slot has been reserved; with
     * {@code waitForRoom} the backlog that is full, for which the handshake may wait (answering
     * OVERLOAD with the reason if no room frees up in time).
     */
    record Verdict(
            IdentityHandshake.Answer answer,
            String reason,
            AcceptQueue queue,
            boolean waitForRoom,
            HandshakeProof.Accepted proof) {
        public Verdict(IdentityHandshake.Answer answer, String reason, AcceptQueue queue, boolean waitForRoom) {
            this(answer, reason, queue, waitForRoom, null);
        }

        /**
         * The same verdict with the key proof of the request ({@link IdentityHandshake#KEY_PROOF}):
         * its ACCEPT carries the answer, and the connection waits for the client's Finished.
         */
        public Verdict withProof(HandshakeProof.Accepted proof) {
            return proof == null ? this : new Verdict(answer, reason, queue, waitForRoom, proof);
        }

        public static Verdict accept(AcceptQueue queue) {
            return new Verdict(IdentityHandshake.Answer.ACCEPT, "", queue, false);
        }

        /** ACCEPT to a PROBE: answered, then closed; no slot, nothing for the application. */
        public static Verdict probed() {
            return new Verdict(IdentityHandshake.Answer.ACCEPT, "", null, false);
        }

        public static Verdict reject(IdentityHandshake.Answer answer, String reason) {
            return new Verdict(answer, reason, null, false);
        }

        public static Verdict waitForRoom(AcceptQueue queue, String reason) {
            return new Verdict(IdentityHandshake.Answer.OVERLOAD, reason, queue, true);
        }
    }

    Verdict judge(InetSocketAddress remote, IdentityHandshake.Request request);

    /**
     * True if an accepted {@code request} runs TLS after the handshake: it asked for it, or this
     * node runs every kernel socket in TLS ({@code traverse.encrypt=all}) and imposes it. The
     * ACCEPT then says so ({@link IdentityHandshake#TLS}).
     */
    default boolean runsTls(IdentityHandshake.Request request) {
        return request.tls();
    }
}
