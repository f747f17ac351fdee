package io.traverse.hub.gossip;

import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The newest description of every other hub, when it arrived, and since when the hub has been
 * unreachable in the routing graph. Not thread-safe (but {@link #holdsAtLeast}): the hub's state loop owns it.
 */
public final class HubDirectory {
    private final Map<NodeId, Entry> entries = new HashMap<>();
    /** Which hubs list each node, so that a hub can tell at once whether a node is live elsewhere. */
    private final Map<NodeId, Set<NodeId>> hubsByNode = new HashMap<>();
    /** The newest state number held per hub, readable from any thread (I/O threads drop stale gossip by it). */
    private final Map<NodeId, Long> newestStates = new ConcurrentHashMap<>();
    /** Each hub's listed neighbours as a set, made once per description rather than per route computation. */
    private final Map<NodeId, Set<NodeId>> neighbourSets = new HashMap<>();
    private final int maxHubs;

    /** @param maxHubs descriptions kept at most; news of further hubs is ignored until some expire */
    public HubDirectory(int maxHubs) {
        this.maxHubs = maxHubs;
    }

    private static final class Entry {
        HubDescription description;
        long receivedNanos;
        long unreachableSinceNanos = -1;
    }

    /**
     * Keeps a description if it is newer than the one known (or the first).
     *
     * @return true if it was new, i.e. worth flooding on (false also when the directory is full)
     */
    public boolean offer(HubDescription description, long nowNanos) {
        Entry entry = entries.get(description.hubId());
        if (entry != null && Long.compareUnsigned(description.stateNumber(), entry.description.stateNumber()) <= 0) {
            return false;
        }
        if (entry == null) {
            if (entries.size() >= maxHubs) {
                return false;
            }
            entry = new Entry();
            entries.put(description.hubId(), entry);
        }
        if (entry.description != null) {
            unindexNodes(entry.description);
        }
        entry.description = description;
        entry.receivedNanos = nowNanos;
        for (HubDescription.NodeEntry node : description.nodes()) {
            hubsByNode.computeIfAbsent(node.nodeId(), n -> new HashSet<>(2)).add(description.hubId());
        }
        neighbourSets.put(description.hubId(), Set.copyOf(description.neighbours()));
        newestStates.put(description.hubId(), description.stateNumber());
        return true;
    }

    public HubDescription get(NodeId hubId) {
        Entry entry = entries.get(hubId);
        return entry == null ? null : entry.description;
    }

    public Collection<HubDescription> descriptions() {
        List<HubDescription> all = new ArrayList<>(entries.size());
        for (Entry entry : entries.values()) {
            all.add(entry.description);
        }
        return Collections.unmodifiableList(all);
    }

    private void unindexNodes(HubDescription description) {
        for (HubDescription.NodeEntry node : description.nodes()) {
            Set<NodeId> hubs = hubsByNode.get(node.nodeId());
            if (hubs != null) {
                hubs.remove(description.hubId());
                if (hubs.isEmpty()) {
                    hubsByNode.remove(node.nodeId());
                }
            }
        }
    }

    /** The other hubs whose newest description lists this node (usually none or one). */
    public Set<NodeId> hubsListing(NodeId node) {
        Set<NodeId> hubs = hubsByNode.get(node);
        return hubs == null ? Set.of() : Collections.unmodifiableSet(hubs);
    }

    /** Whether the directory holds this state of a hub's description or a newer one. Thread-safe. */
    public boolean holdsAtLeast(NodeId hubId, long stateNumber) {
        Long held = newestStates.get(hubId);
        return held != null && Long.compareUnsigned(stateNumber, held) <= 0;
    }

    /** Each known hub's neighbours as it lists them (immutable sets; the map is a live read-only view). */
    public Map<NodeId, Set<NodeId>> neighbourSets() {
        return Collections.unmodifiableMap(neighbourSets);
    }

    /** The hubs known and the state number of each one's newest description. */
    public Map<NodeId, Long> stateNumbers() {
        Map<NodeId, Long> states = new HashMap<>();
        entries.forEach((id, entry) -> states.put(id, entry.description.stateNumber()));
        return states;
    }

    public int size() {
        return entries.size();
    }

    /** Records which hubs the routing graph reaches now. */
    public void markReachable(Set<NodeId> reachable, long nowNanos) {
        for (Map.Entry<NodeId, Entry> e : entries.entrySet()) {
            if (reachable.contains(e.getKey())) {
                e.getValue().unreachableSinceNanos = -1;
            } else if (e.getValue().unreachableSinceNanos < 0) {
                e.getValue().unreachableSinceNanos = nowNanos;
            }
        }
    }

    /**
     * Forgets hubs whose description is older than the expiry (the hub stopped re-gossiping) or
     * that have been unreachable that long.
     *
     * @return the ids forgotten
     */
    public List<NodeId> expire(long nowNanos, long expiryNanos) {
        List<NodeId> expired = new ArrayList<>();
        entries.entrySet().removeIf(e -> {
            Entry entry = e.getValue();
            boolean silent = nowNanos - entry.receivedNanos > expiryNanos;
            boolean unreachable = entry.unreachableSinceNanos >= 0 && nowNanos - entry.unreachableSinceNanos > expiryNanos;
            if (silent || unreachable) {
                expired.add(e.getKey());
                neighbourSets.remove(e.getKey());
                newestStates.remove(e.getKey());
                unindexNodes(entry.description);
                return true;
            }
            return false;
        });
        return expired;
    }
}
