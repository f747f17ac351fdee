package io.traverse.hub.registry;

import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every node and name of the reachable hub network, from descriptions given nearest first (this
 * hub's own first). When two hubs list the same node (it just failed over), the nearer hub wins,
 * then the smaller hub id. A name is claimed by a node that holds it at the hub it is at, or by a
 * node a hub reserves it for (it left that hub lately; {@link NameReservations}). When claims of
 * different nodes meet (two nodes bound the name at the same moment at different hubs, or in two
 * parts of a network that joined), the node with the smaller id wins, whether it holds the name or
 * it is reserved for it: a rule that depends on nothing but the claims, so every hub that holds
 * the same descriptions answers alike, wherever it sits. Of one node's claims, a held name wins
 * over a reservation. Immutable.
 */
public final class NetworkIndex {
    /** Where a node is: its hub and its identity text. */
    public record NodeLocation(NodeId nodeId, NodeId hubId, String identityText) {}

    /**
     * Who claims a name: the node, its hub (for a reservation, the hub that keeps it) and the
     * virtual port, {@link HubDescription.NameEntry#RESERVED} for a reservation.
     */
    public record NameHolder(String name, NodeId nodeId, NodeId hubId, int virtualPort) {
        /** Kept for a node that left its hub lately: nobody else may take it, and lookups do not find it. */
        public boolean reserved() {
            return virtualPort == HubDescription.NameEntry.RESERVED;
        }

        /** Whether this claim wins over {@code other}, a claim of the same name (the rule above). */
        boolean winsOver(NameHolder other) {
            int byNode = nodeId.compareTo(other.nodeId);
            if (byNode != 0) {
                return byNode < 0;
            }
            return !reserved() && other.reserved();
        }
    }

    private final Map<NodeId, NodeLocation> nodes;
    private final Map<String, NameHolder> claims;
    private final Map<String, NameHolder> names;

    private NetworkIndex(
            Map<NodeId, NodeLocation> nodes, Map<String, NameHolder> claims, Map<String, NameHolder> names) {
        this.nodes = nodes;
        this.claims = claims;
        this.names = names;
    }

    /** @param nearestFirst descriptions of reachable hubs, this hub's own first, then by hops and id */
    public static NetworkIndex of(List<HubDescription> nearestFirst) {
        Map<NodeId, NodeLocation> nodes = new HashMap<>();
        Map<String, NameHolder> claims = new HashMap<>();
        for (HubDescription hub : nearestFirst) {
            for (HubDescription.NodeEntry node : hub.nodes()) {
                nodes.putIfAbsent(node.nodeId(), new NodeLocation(node.nodeId(), hub.hubId(), node.identityText()));
            }
        }
        for (HubDescription hub : nearestFirst) {
            for (HubDescription.NameEntry name : hub.names()) {
                if (!name.reserved()) {
                    NodeLocation owner = nodes.get(name.nodeId());
                    // A name counts only where its node is: a stale listing at the node's old hub is ignored.
                    if (owner == null || !owner.hubId().equals(hub.hubId())) {
                        continue;
                    }
                }
                NameHolder claim = new NameHolder(name.name(), name.nodeId(), hub.hubId(), name.virtualPort());
                claims.merge(
                        NameRules.canonical(name.name()), claim, (held, next) -> next.winsOver(held) ? next : held);
            }
        }
        Map<String, NameHolder> names = new HashMap<>();
        claims.forEach((name, claim) -> {
            if (!claim.reserved()) {
                names.put(name, claim);
            }
        });
        return new NetworkIndex(
                Collections.unmodifiableMap(nodes),
                Collections.unmodifiableMap(claims),
                Collections.unmodifiableMap(names));
    }

    public NodeLocation node(NodeId id) {
        return nodes.get(id);
    }

    /** The node a name is bound to, or null if none is (also while it is reserved). */
    public NameHolder name(String canonicalName) {
        return names.get(canonicalName);
    }

    /** The winning claim on a name, held or reserved, or null if nobody claims it. */
    public NameHolder claim(String canonicalName) {
        return claims.get(canonicalName);
    }

    public Map<NodeId, NodeLocation> nodes() {
        return nodes;
    }

    /** The names bound to a node, without reservations. */
    public Map<String, NameHolder> names() {
        return names;
    }
}
