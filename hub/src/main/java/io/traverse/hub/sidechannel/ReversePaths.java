package io.traverse.hub.sidechannel;

import io.traverse.identity.NodeId;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which neighbouring hub a remote node's side messages last came through, for a while: the way
 * back for an answer when gossip about that node has not arrived yet (right after it connected
 * somewhere). Gossip wins whenever it knows the node. Bounded, least recently used out. Used by
 * the relay router too: an ACCEPT must find its way back to an opener that connected a moment ago.
 * Thread-safe (the side-channel router remembers paths on I/O threads too).
 */
public final class ReversePaths {
    public static final int DEFAULT_CAPACITY = 4096;

    private record Path(NodeId neighbour, long expiresNanos) {}

    private final long ttlNanos;
    private final Map<NodeId, Path> paths;

    public ReversePaths(int capacity, long ttlNanos) {
        this.ttlNanos = ttlNanos;
        this.paths = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<NodeId, Path> eldest) {
                return size() > capacity;
            }
        };
    }

    public synchronized void remember(NodeId node, NodeId neighbour, long nowNanos) {
        paths.put(node, new Path(neighbour, nowNanos + ttlNanos));
    }

    /** The neighbour the node was last heard through, or null if never or too long ago. */
    public synchronized NodeId neighbourFor(NodeId node, long nowNanos) {
        Path path = paths.get(node);
        if (path == null) {
            return null;
        }
        if (path.expiresNanos() - nowNanos < 0) {
            paths.remove(node);
            return null;
        }
        return path.neighbour();
    }
}
