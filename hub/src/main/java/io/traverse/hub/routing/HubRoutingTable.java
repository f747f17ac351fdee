package io.traverse.hub.routing;

import io.traverse.identity.NodeId;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Shortest next hops from this hub to every hub reachable in the {@link HubGraph}, by hop count
 * (breadth-first search, {@link HubTopology#routes}). Of several shortest paths, the one through the neighbour with the
 * lowest id wins, so every run on the same graph gives the same table whatever order the search
 * visits neighbours in (a hub's next hop is final before the search leaves its distance). Immutable.
 */
public final class HubRoutingTable {
    /** Where to send something for a hub: the neighbour to hand it to, and how many hops away the hub is. */
    public record Route(NodeId destination, NodeId nextHop, int hops) {}

    private final NodeId self;
    private final Map<NodeId, Route> routes;
    private final HubGraph graph;

    private HubRoutingTable(NodeId self, Map<NodeId, Route> routes, HubGraph graph) {
        this.self = self;
        this.routes = routes;
        this.graph = graph;
    }

    /** Computes the routes of a graph from scratch (a hub keeps a {@link HubTopology} instead, updated as lists arrive). */
    public static HubRoutingTable compute(HubGraph graph) {
        HubTopology topology = new HubTopology(graph.self());
        graph.forEachListed(topology::list);
        return topology.routes();
    }

    static HubRoutingTable of(NodeId self, Map<NodeId, Route> routes, HubGraph graph) {
        return new HubRoutingTable(self, routes, graph);
    }

    public NodeId self() {
        return self;
    }

    /** The route to a hub, if it is reachable (never for this hub itself). */
    public Optional<Route> route(NodeId hub) {
        return Optional.ofNullable(routes.get(hub));
    }

    public boolean isReachable(NodeId hub) {
        return hub.equals(self) || routes.containsKey(hub);
    }

    /** Every reachable hub but this one, with its route. */
    public Map<NodeId, Route> routes() {
        return routes;
    }

    /** The hubs reachable from here, this one included. */
    public Set<NodeId> reachable() {
        java.util.HashSet<NodeId> all = new java.util.HashSet<>(routes.keySet());
        all.add(self);
        return all;
    }

    public HubGraph graph() {
        return graph;
    }
}
