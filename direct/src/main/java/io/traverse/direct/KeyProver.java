package io.traverse.direct;

import io.traverse.identity.NodeId;
import io.traverse.protocol.HandshakeProof;
import io.traverse.security.PeerSessions;

/**
 * What an attempt needs to prove keys in its identity handshake ({@code IdentityHandshake.KEY_PROOF}):
 * this node's sessions and the id of the node it expects. Each attempt makes its own offer (fresh
 * nonces), on the bytes it sends.
 */
record KeyProver(PeerSessions sessions, NodeId target) {
    /** The offer for one request as encoded (hold bit and all). */
    HandshakeProof.Client offer(byte[] request) {
        return HandshakeProof.offer(sessions, target, request);
    }

    /** The target no longer keeps the session (it restarted): the next offer to it is full. */
    void forget() {
        sessions.forget(target);
    }
}
