package io.traverse.spi;

import io.traverse.identity.NodeIdentity;
import java.io.IOException;

/**
 * Dials a node's own addresses and proves the peer with the identity handshake: the one way
 * every module that ends in a kernel socket reaches a peer. The direct module provides it
 * ({@link HandshakeDialerProvider}); reverse dials back through it, so that both reach the same
 * addresses in the same order, through the same SSH tunnels.
 */
public interface HandshakeDialer {
    /**
     * Plans a connection to the request's target (a CONNECT handshake, a PROBE for a probe request).
     *
     * @throws AttemptFailedException with {@link FailureScope#MODULE} when the target has no address to dial
     */
    ConnectionAttempt attempt(ConnectRequest request) throws AttemptFailedException;

    /**
     * Plans a connection that the target asked for (a dial-back): the handshake is a REVERSE one
     * carrying {@code reverseProof} (the {@link io.traverse.protocol.DialBackProof} of the target's
     * token, never the token itself), and the request's virtual port is this node's own, where the
     * connection will be accepted.
     *
     * @param beforeHandshake run on every address whose TCP connection is up, before its handshake
     *     is sent (may be null); it must be idempotent
     * @throws AttemptFailedException with {@link FailureScope#MODULE} when the target has no address to dial
     */
    ConnectionAttempt dialBack(ConnectRequest request, byte[] reverseProof, BeforeHandshake beforeHandshake)
            throws AttemptFailedException;

    /**
     * True if every address of {@code target} is a private or link-local address of a network this
     * node is not on, and none has worked before: SYNs to them are mostly dropped on the way.
     */
    boolean onOtherPrivateNetworks(NodeIdentity target);

    /**
     * Something to do once a TCP connection is up and before its identity handshake goes out: a
     * dial-back takes its backlog slot there, so the handshake's arrival tells the dialler the slot
     * is taken. A failure ends the attempt with it.
     */
    @FunctionalInterface
    interface BeforeHandshake {
        void run() throws IOException;
    }
}
