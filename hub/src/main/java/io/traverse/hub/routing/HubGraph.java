package io.traverse.hub.routing;

import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Hubs and the links between them. An edge exists only when both ends list each other as
 * neighbours: one end gossiping the loss of a link is enough to withdraw it. For this hub, its
 * live links stand in for its own (possibly not yet gossiped) neighbour list.
 *
 * <p>Built from the neighbour sets as listed, without copying them (they are immutable) and
 * without precomputing the mutual edges: a dense network of a hundred hubs has ten thousand
 * listed links, and the hub computes its routes many times a second while such a network forms.
 */
public final class HubGraph {
    private final NodeId self;
    private final Map<NodeId, Set<NodeId>> listed;

    private HubGraph(NodeId self, Map<NodeId, Set<NodeId>> listed) {
        this.self = self;
        this.listed = listed;
    }

    /** For tests and small graphs: the neighbour lists taken from descriptions. */
    public static HubGraph of(NodeId self, Set<NodeId> liveNeighbours, Map<NodeId, HubDescription> others) {
        Map<NodeId, Set<NodeId>> listed = new HashMap<>();
        others.forEach((id, d) -> listed.put(id, Set.copyOf(d.neighbours())));
        return ofListed(self, liveNeighbours, listed);
    }

    /**
     * @param liveNeighbours this hub's live links (copied)
     * @param listedNeighbours each other hub's neighbours as it lists them; the sets must be immutable
     */
    public static HubGraph ofListed(
            NodeId self, Set<NodeId> liveNeighbours, Map<NodeId, Set<NodeId>> listedNeighbours) {
        Map<NodeId, Set<NodeId>> listed = new HashMap<>(listedNeighbours);
        listed.put(self, Set.copyOf(liveNeighbours));
        return new HubGraph(self, listed);
    }

    /** Each hub's listed neighbours, this hub's live links included. */
    void forEachListed(java.util.function.BiConsumer<NodeId, Set<NodeId>> action) {
        listed.forEach(action);
    }

    public NodeId self() {
        return self;
    }

    /** Whether both hubs list each other. */
    public boolean linked(NodeId a, NodeId b) {
        if (a.equals(b)) {
            return false;
        }
        Set<NodeId> fromA = listed.get(a);
        Set<NodeId> fromB = listed.get(b);
        return fromA != null && fromB != null && fromA.contains(b) && fromB.contains(a);
    }

    /** The hubs a hub lists as its neighbours; only those that list it back are {@link #linked}. */
    Set<NodeId> listedBy(NodeId hub) {
        return listed.getOrDefault(hub, Set.of());
    }

    public Set<NodeId> neighbours(NodeId hub) {
        Set<NodeId> mutual = new HashSet<>();
        for (NodeId other : listedBy(hub)) {
            if (linked(hub, other)) {
                mutual.add(other);
            }
        }
        return mutual;
    }

    /** Every edge once, as {@code [smaller id, larger id]}, sorted. */
    public List<List<NodeId>> edges() {
        List<List<NodeId>> edges = new ArrayList<>();
        for (Map.Entry<NodeId, Set<NodeId>> e : listed.entrySet()) {
            for (NodeId other : e.getValue()) {
                if (e.getKey().compareTo(other) < 0 && linked(e.getKey(), other)) {
                    edges.add(List.of(e.getKey(), other));
                }
            }
        }
        edges.sort((a, b) -> a.get(0).equals(b.get(0))
                ? a.get(1).compareTo(b.get(1))
                : a.get(0).compareTo(b.get(0)));
        return edges;
    }
}
