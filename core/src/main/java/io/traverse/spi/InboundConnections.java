package io.traverse.spi;

import io.traverse.identity.NodeId;
import java.io.IOException;
import java.net.Socket;

/**
 * Where connections that modules bring in, rather than the listener, arrive at this node: the
 * backlogs of its virtual ports, for a connection to them that this node dialled itself at
 * another's request (reverse), spliced (splice), or that a hub relayed (routed)
 * ({@link #checkListening}, {@link #reserve}); and the rendezvous for a connection this node
 * asked another node to dial back ({@link #expect}).
 */
public interface InboundConnections {
    /**
     * Starts waiting for {@code from} to dial this node's listening port with a REVERSE
     * handshake carrying the {@link io.traverse.protocol.DialBackProof} of the returned
     * expectation's token, for {@code from}'s own {@code virtualPort} (the one this node asks for).
     */
    Expectation expect(NodeId from, int virtualPort);

    /**
     * Checks that a local virtual port listens, before any dialling back for it.
     *
     * @throws AttemptFailedException with {@link FailureScope#TARGET}: nothing listens there
     */
    void checkListening(int virtualPort) throws AttemptFailedException;

    /**
     * Reserves room in the backlog of a local virtual port for a connection this node has dialled
     * back (reserved only once it is there: a dial that hangs must not hold a slot).
     *
     * @throws AttemptFailedException with {@link FailureScope#TARGET}: nothing listens there, or its backlog is full
     */
    PortSlot reserve(int virtualPort) throws AttemptFailedException;

    /** A connection expected back; {@link #close()} stops waiting (a waiting {@link #take} then throws). */
    interface Expectation extends AutoCloseable {
        /**
         * The token to hand the dialling node through the side channel (never on a wire in clear): random,
         * {@value io.traverse.protocol.IdentityHandshake#TOKEN_LENGTH} bytes; it proves it knows it with a
         * {@link io.traverse.protocol.DialBackProof}.
         */
        byte[] token();

        /**
         * Waits for the connection.
         *
         * @throws java.net.SocketTimeoutException when the timeout passes
         * @throws java.net.SocketException when the expectation was closed meanwhile
         */
        Socket take(long timeoutMillis) throws IOException;

        @Override
        void close();
    }

    /** Room reserved in a virtual port's backlog: exactly one of deliver or release. */
    interface PortSlot {
        /**
         * Queues the connection for the server socket's {@code accept()}; {@code module} is the
         * module that made it (what {@code Traverse.connectionInfo} reports for the accepted socket).
         */
        void deliver(Socket socket, String module);

        void release();
    }
}
