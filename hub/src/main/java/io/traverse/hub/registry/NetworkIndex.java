package io.traverse.hub.registry;

import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every node and name of the reachable hub network, from descriptions given nearest first (this
 * hub's own first). When two hubs list the same node (it just failed over) or the same name (two
 * nodes bound it at the same moment at different hubs), the nearer hub wins, then the smaller
 * hub id: a rule every hub applies alike. Immutable.
 */
public final class NetworkIndex {
    /** Where a node is: its hub and its identity text. */
    public record NodeLocation(NodeId nodeId, NodeId hubId, String identityText) {}

    /** Who holds a name: the node, its hub and the virtual port. */
    public record NameHolder(String name, NodeId nodeId, NodeId hubId, int virtualPort) {}

    private final Map<NodeId, NodeLocation> nodes;
    private final Map<String, NameHolder> names;

    private NetworkIndex(Map<NodeId, NodeLocation> nodes, Map<String, NameHolder> names) {
        this.nodes = nodes;
        this.names = names;
    }

    /** @param nearestFirst descriptions of reachable hubs, this hub's own first, then by hops and id */
    public static NetworkIndex of(List<HubDescription> nearestFirst) {
        Map<NodeId, NodeLocation> nodes = new HashMap<>();
        Map<String, NameHolder> names = new HashMap<>();
        for (HubDescription hub : nearestFirst) {
            for (HubDescription.NodeEntry node : hub.nodes()) {
                nodes.putIfAbsent(node.nodeId(), new NodeLocation(node.nodeId(), hub.hubId(), node.identityText()));
            }
        }
        for (HubDescription hub : nearestFirst) {
            for (HubDescription.NameEntry name : hub.names()) {
                NodeLocation owner = nodes.get(name.nodeId());
                // A name counts only where its node is: a stale listing at the node's old hub is ignored.
                if (owner != null && owner.hubId().equals(hub.hubId())) {
                    names.putIfAbsent(
                            NameRules.canonical(name.name()),
                            new NameHolder(name.name(), name.nodeId(), hub.hubId(), name.virtualPort()));
                }
            }
        }
        return new NetworkIndex(Collections.unmodifiableMap(nodes), Collections.unmodifiableMap(names));
    }

    public NodeLocation node(NodeId id) {
        return nodes.get(id);
    }

    public NameHolder name(String canonicalName) {
        return names.get(canonicalName);
    }

    public Map<NodeId, NodeLocation> nodes() {
        return nodes;
    }

    public Map<String, NameHolder> names() {
        return names;
    }
}
