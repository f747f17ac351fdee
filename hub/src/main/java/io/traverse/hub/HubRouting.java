package io.traverse.hub;

import io.traverse.identity.NodeId;
import java.util.Map;
import java.util.Set;

/**
 * The part of a {@link HubStatus} that says how the hub routes: its live hub links and its
 * routes. Cheap to take even in a network of hundreds of hubs, where a full status (every known
 * hub with its neighbours) is quadratic in their number.
 *
 * @param linksChangedNanos {@link System#nanoTime()} when the set of linked hubs last changed
 *     (comparable only within this JVM, e.g. between hubs of a test or benchmark)
 * @param routesChangedNanos {@link System#nanoTime()} when the routing table last changed
 */
public record HubRouting(
        NodeId hubId,
        Set<NodeId> linkedHubs,
        Map<NodeId, HubStatus.RouteStatus> routes,
        long linksChangedNanos,
        long routesChangedNanos) {
    public HubRouting {
        linkedHubs = Set.copyOf(linkedHubs);
        routes = Map.copyOf(routes);
    }
}
