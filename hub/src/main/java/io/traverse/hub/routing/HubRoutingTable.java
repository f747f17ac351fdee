package io.traverse.hub.routing;

import io.traverse.identity.NodeId;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Shortest next hops from this hub to every hub reachable in the {@link HubGraph}, by hop count
 * (breadth-first search). Of several shortest paths, the one through the neighbour with the
 * lowest id wins, so every run on the same graph gives the same table whatever order the search
 * visits neighbours in (a hub's next hop is final before the search leaves its distance). Immutable.
 */
public final class HubRoutingTable {
    /** Where to send something for a hub: the neighbour to hand it to, and how many hops away the hub is. */
    public record Route(NodeId destination, NodeId nextHop, int hops) {
    }

    private final NodeId self;
    private final Map<NodeId, Route> routes;
    private final HubGraph graph;

    private HubRoutingTable(NodeId self, Map<NodeId, Route> routes, HubGraph graph) {
        this.self = self;
        this.routes = routes;
        this.graph = graph;
    }

    public static HubRoutingTable compute(HubGraph graph) {
        NodeId self = graph.self();
        // One map for distance and next hop (a route's hops); self is at 0 with no route of its own.
        Map<NodeId, Route> routes = new HashMap<>();
        Deque<NodeId> queue = new ArrayDeque<>();
        queue.add(self);
        while (!queue.isEmpty()) {
            NodeId hub = queue.poll();
            Route viaRoute = hub == self ? null : routes.get(hub);
            int d = viaRoute == null ? 0 : viaRoute.hops();
            for (NodeId next : graph.listedBy(hub)) {
                if (next.equals(self)) {
                    continue;
                }
                Route known = routes.get(next);
                // Hubs nearer than d + 1 first: in a dense network that skips most, before the costlier edge check.
                // The hub lists next (we iterate its list): the edge needs only next to list it back.
                if ((known != null && known.hops() <= d) || !graph.listedBy(next).contains(hub)) {
                    continue;
                }
                NodeId candidateHop = viaRoute == null ? next : viaRoute.nextHop();
                if (known == null) {
                    routes.put(next, new Route(next, candidateHop, d + 1));
                    queue.add(next);
                } else if (known.hops() == d + 1 && candidateHop.compareTo(known.nextHop()) < 0) {
                    routes.put(next, new Route(next, candidateHop, d + 1));
                }
            }
        }
        return new HubRoutingTable(self, Collections.unmodifiableMap(routes), graph);
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
