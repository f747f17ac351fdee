package io.traverse.direct;

import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The address at which each node last answered ACCEPT, tried first the next time: a node whose
 * first address leads to another machine (a private range reused at another site) or nowhere then
 * costs that detour once, not on every connection. Bounded, least recently used first out.
 */
final class WorkingAddresses {
    static final int MAX_ENTRIES = 4096;

    private final Map<NodeId, InetSocketAddress> byNode = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<NodeId, InetSocketAddress> eldest) {
            return size() > MAX_ENTRIES;
        }
    };

    /** The heuristic order, with the address that worked last moved to the front. */
    List<InetSocketAddress> first(NodeIdentity target, List<InetSocketAddress> order) {
        if (target.id().isEmpty()) {
            return order;
        }
        InetSocketAddress known;
        synchronized (this) {
            known = byNode.get(target.id().get());
        }
        if (known == null || order.isEmpty() || order.get(0).equals(known) || !order.contains(known)) {
            return order;
        }
        List<InetSocketAddress> reordered = new ArrayList<>(order.size());
        reordered.add(known);
        for (InetSocketAddress a : order) {
            if (!a.equals(known)) {
                reordered.add(a);
            }
        }
        return reordered;
    }

    /** The address that worked last for this node, or null. */
    synchronized InetSocketAddress known(NodeIdentity target) {
        return target.id().map(byNode::get).orElse(null);
    }

    void worked(NodeIdentity target, InetSocketAddress address) {
        target.id().ifPresent(id -> {
            synchronized (this) {
                byNode.put(id, address);
            }
        });
    }

    void failed(NodeIdentity target, InetSocketAddress address) {
        target.id().ifPresent(id -> {
            synchronized (this) {
                byNode.remove(id, address);
            }
        });
    }
}
