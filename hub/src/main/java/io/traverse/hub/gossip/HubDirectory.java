package io.traverse.hub.gossip;

import io.traverse.identity.NodeId;
import io.traverse.wire.GossipSummary;
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
 * The newest description of every other hub, and since when the hub has been unreachable in the
 * routing graph (a hub is alive while it is reachable: its links are watched by their keepalives,
 * and the surviving end of a dead link gossips its loss). Also the {@link GossipSummary} of the
 * descriptions of reachable hubs, kept up to date one description at a time. Not thread-safe (but
 * {@link #holdsAtLeast}): the hub's state loop owns it.
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
    /**
     * Hubs forgotten within the last expiry time, with the state they were forgotten at and when:
     * that state or an older one is no news, so a dead hub's description that some hub still
     * holds (or passes on in a new link's catch-up) does not bring it back everywhere. A newer
     * state (the hub restarted) is news as usual. Their states stay in {@link #newestStates} so
     * that I/O threads drop such copies undecoded.
     */
    private final Map<NodeId, long[]> forgotten = new HashMap<>();

    /** @param maxHubs descriptions kept at most; news of further hubs is ignored until some expire */
    public HubDirectory(int maxHubs) {
        this.maxHubs = maxHubs;
    }

    /**
     * No unreachable hub became so before this instant (it may be earlier than the truth: a hub
     * that was the earliest may be reachable again), so {@link #expire} looks at the entries only
     * once an expiry time has passed since; {@link #NONE} while every hub is reachable.
     */
    private long earliestUnreachableNanos = NONE;

    private static final long NONE = Long.MAX_VALUE;

    /** Over the descriptions of reachable hubs: how many, and the sum of their {@link GossipSummary#entryHash}es. */
    private long reachableCount;

    private long reachableHash;

    private static final class Entry {
        HubDescription description;
        /** {@link GossipSummary#entryHash} of the description's hub id and state number. */
        long pairHash;
        /** Until the routes say otherwise, a hub just learned of counts as unreachable since it arrived. */
        long unreachableSinceNanos;

        boolean reachable() {
            return unreachableSinceNanos < 0;
        }
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
        long[] tombstone = entry == null ? forgotten.get(description.hubId()) : null;
        if (tombstone != null) {
            if (Long.compareUnsigned(description.stateNumber(), tombstone[0]) <= 0) {
                return false;
            }
            forgotten.remove(description.hubId());
        }
        if (entry == null) {
            if (entries.size() >= maxHubs) {
                return false;
            }
            entry = new Entry();
            entry.unreachableSinceNanos = nowNanos;
            unreachableSince(nowNanos);
            entries.put(description.hubId(), entry);
        }
        if (entry.description != null) {
            unindexNodes(entry.description);
        }
        long pairHash = GossipSummary.entryHash(description.hubId(), description.stateNumber());
        if (entry.reachable()) {
            reachableHash += pairHash - entry.pairHash;
        }
        entry.description = description;
        entry.pairHash = pairHash;
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
        markReachable(null, reachable, nowNanos);
    }

    /** Records which hubs the routing graph reaches now: {@code self} (may be null) and {@code routed}. */
    public void markReachable(NodeId self, Set<NodeId> routed, long nowNanos) {
        for (Map.Entry<NodeId, Entry> e : entries.entrySet()) {
            Entry entry = e.getValue();
            boolean now = routed.contains(e.getKey()) || e.getKey().equals(self);
            if (now && !entry.reachable()) {
                entry.unreachableSinceNanos = -1;
                reachableCount++;
                reachableHash += entry.pairHash;
            } else if (!now && entry.reachable()) {
                entry.unreachableSinceNanos = nowNanos;
                unreachableSince(nowNanos);
                reachableCount--;
                reachableHash -= entry.pairHash;
            }
        }
    }

    private void unreachableSince(long nowNanos) {
        if (earliestUnreachableNanos == NONE || nowNanos - earliestUnreachableNanos < 0) {
            earliestUnreachableNanos = nowNanos;
        }
    }

    /** Whether the routes reached this hub when they were last computed (false for hubs not known). */
    public boolean isReachable(NodeId hubId) {
        Entry entry = entries.get(hubId);
        return entry != null && entry.reachable();
    }

    /**
     * The summary of what this hub holds, for its neighbours to compare with theirs: its own
     * description (id and state given) and those of the hubs its routes reach. Descriptions of
     * unreachable hubs are left out, as they are left out of digest answers: they are on their
     * way to being forgotten, and passing them on would bring them back.
     */
    public GossipSummary summary(NodeId self, long ownState) {
        return new GossipSummary(reachableCount + 1, reachableHash + GossipSummary.entryHash(self, ownState));
    }

    /**
     * Forgets hubs that have been unreachable in the routing graph for the expiry time (a hub
     * just learned of counts as unreachable from its arrival until the routes reach it).
     *
     * @return the descriptions forgotten
     */
    public List<HubDescription> expire(long nowNanos, long expiryNanos) {
        List<HubDescription> expired = new ArrayList<>();
        if (!forgotten.isEmpty()) {
            forgotten.entrySet().removeIf(t -> {
                if (nowNanos - t.getValue()[1] > expiryNanos) {
                    newestStates.remove(t.getKey());
                    return true;
                }
                return false;
            });
        }
        if (reachableCount == entries.size()) {
            earliestUnreachableNanos = NONE;
            return expired; // every hub reachable: nothing to look at
        }
        if (earliestUnreachableNanos != NONE && nowNanos - earliestUnreachableNanos <= expiryNanos) {
            return expired; // none unreachable for long enough yet: a dead hub's 30 s must not cost a walk every second
        }
        earliestUnreachableNanos = NONE;
        entries.entrySet().removeIf(e -> {
            Entry entry = e.getValue();
            if (!entry.reachable() && nowNanos - entry.unreachableSinceNanos > expiryNanos) {
                expired.add(entry.description);
                neighbourSets.remove(e.getKey());
                forgotten.put(e.getKey(), new long[] {entry.description.stateNumber(), nowNanos});
                unindexNodes(entry.description);
                return true;
            }
            if (!entry.reachable()) {
                unreachableSince(entry.unreachableSinceNanos);
            }
            return false;
        });
        return expired;
    }
}
