package io.traverse.hub.routing;

import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Hubs and the links between them. An edge exists only when both ends list each other as
 * neighbours: one end gossiping the loss of a link is enough to withdraw it. For this hub, its
 * live links stand in for its own (possibly not yet gossiped) neighbour list.
 */
public final class HubGraph {
    private final NodeId self;
    private final Map<NodeId, Set<NodeId>> adjacency;

    private HubGraph(NodeId self, Map<NodeId, Set<NodeId>> adjacency) {
        this.self = self;
        this.adjacency = adjacency;
    }

    public static HubGraph of(NodeId self, Set<NodeId> liveNeighbours, Map<NodeId, HubDescription> others) {
        Map<NodeId, Set<NodeId>> listed = new HashMap<>();
        listed.put(self, liveNeighbours);
        for (Map.Entry<NodeId, HubDescription> e : others.entrySet()) {
            if (!e.getKey().equals(self)) {
                listed.put(e.getKey(), Set.copyOf(e.getValue().neighbours()));
            }
        }
        Map<NodeId, Set<NodeId>> adjacency = new HashMap<>();
        for (Map.Entry<NodeId, Set<NodeId>> e : listed.entrySet()) {
            // Sorted, so that the search visits neighbours in id order and ties break the same way everywhere.
            Set<NodeId> mutual = new TreeSet<>();
            for (NodeId neighbour : e.getValue()) {
                Set<NodeId> back = listed.get(neighbour);
                if (back != null && back.contains(e.getKey()) && !neighbour.equals(e.getKey())) {
                    mutual.add(neighbour);
                }
            }
            adjacency.put(e.getKey(), Collections.unmodifiableSet(mutual));
        }
        return new HubGraph(self, adjacency);
    }

    public NodeId self() {
        return self;
    }

    public Set<NodeId> neighbours(NodeId hub) {
        return adjacency.getOrDefault(hub, Set.of());
    }

    /** Every edge once, as {@code [smaller id, larger id]}, sorted. */
    public List<List<NodeId>> edges() {
        List<List<NodeId>> edges = new ArrayList<>();
        for (Map.Entry<NodeId, Set<NodeId>> e : adjacency.entrySet()) {
            for (NodeId other : e.getValue()) {
                if (e.getKey().compareTo(other) < 0) {
                    edges.add(List.of(e.getKey(), other));
                }
            }
        }
        edges.sort((a, b) -> a.get(0).equals(b.get(0)) ? a.get(1).compareTo(b.get(1)) : a.get(0).compareTo(b.get(0)));
        return edges;
    }
}
