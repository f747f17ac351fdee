package io.traverse.listen;

import io.traverse.identity.NodeId;
import io.traverse.protocol.DialBackProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.spi.InboundConnections;
import java.io.IOException;
import java.net.Socket;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Connections this node has asked other nodes to dial back: the listener hands a REVERSE
 * handshake to the waiting attempt if it carries the {@link DialBackProof} of a token handed out
 * (the proof binds this node, the node asked and its virtual port), and refuses any other. The
 * token itself only ever travels in the side channel, so a REVERSE request that carries it, or a
 * proof made for another node or port, is refused like an unknown one. Each expectation takes one
 * connection.
 */
public final class ReverseRendezvous {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    /** This node's id, which every proof names as the listener. */
    private final Supplier<NodeId> self;
    /** By the proof expected: a proof is as secret as its token until the dialler sends it. */
    private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();

    private record Waiting(NodeId from, AcceptQueue queue) {}

    public ReverseRendezvous(Supplier<NodeId> self) {
        this.self = self;
    }

    /** Starts waiting for {@code from} to dial back from its {@code virtualPort}; see {@link InboundConnections#expect}. */
    public InboundConnections.Expectation expect(NodeId from, int virtualPort) {
        byte[] token = new byte[IdentityHandshake.TOKEN_LENGTH];
        RANDOM.nextBytes(token);
        String key = HEX.formatHex(DialBackProof.of(token, self.get(), from, virtualPort));
        AcceptQueue queue = new AcceptQueue(1);
        waiting.put(key, new Waiting(from, queue));
        return new InboundConnections.Expectation() {
            @Override
            public byte[] token() {
                return token.clone();
            }

            @Override
            public Socket take(long timeoutMillis) throws IOException {
                return queue.take((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeoutMillis)));
            }

            @Override
            public void close() {
                waiting.remove(key);
                queue.close(); // a connection that arrived but was not taken is closed with it
            }
        };
    }

    /**
     * The backlog for a REVERSE handshake, or null unless its proof is expected from that node.
     * The proof is used up: a second connection with it is refused.
     */
    public AcceptQueue claim(byte[] proof, NodeId dialler) {
        String key = HEX.formatHex(proof);
        Waiting w = waiting.get(key);
        if (w == null || dialler == null || !w.from().equals(dialler) || !waiting.remove(key, w)) {
            return null;
        }
        return w.queue();
    }

    /** Expectations still open (for tests: nothing may leak). */
    public int pending() {
        return waiting.size();
    }
}
