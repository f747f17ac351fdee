package io.traverse.hub.gossip;

import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The newest description of every other hub, when it arrived, and since when the hub has been
 * unreachable in the routing graph. Not thread-safe: the hub's state loop owns it.
 */
public final class HubDirectory {
    private final Map<NodeId, Entry> entries = new HashMap<>();
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
        entry.description = description;
        entry.receivedNanos = nowNanos;
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

    public Map<NodeId, HubDescription> byId() {
        Map<NodeId, HubDescription> map = new HashMap<>();
        entries.forEach((id, entry) -> map.put(id, entry.description));
        return map;
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
                return true;
            }
            return false;
        });
        return expired;
    }
}
