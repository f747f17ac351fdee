package io.traverse.listen;

import io.traverse.identity.NodeId;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.spi.InboundConnections;
import java.io.IOException;
import java.net.Socket;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Connections this node has asked other nodes to dial back, by token: the listener hands a
 * REVERSE handshake with a known token and the expected dialler to the waiting attempt, and
 * refuses any other. Each expectation takes one connection.
 */
public final class ReverseRendezvous {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final HexFormat HEX = HexFormat.of();

    private final Map<String, Waiting> waiting = new ConcurrentHashMap<>();

    private record Waiting(NodeId from, AcceptQueue queue) {}

    public InboundConnections.Expectation expect(NodeId from) {
        byte[] token = new byte[IdentityHandshake.TOKEN_LENGTH];
        RANDOM.nextBytes(token);
        String key = HEX.formatHex(token);
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
     * The backlog for a REVERSE handshake, or null unless its token is expected from that node.
     * The token is used up: a second connection with it is refused.
     */
    public AcceptQueue claim(byte[] token, NodeId dialler) {
        String key = HEX.formatHex(token);
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
