package io.traverse.hub.lookup;

import io.traverse.hub.registry.NetworkIndex;
import io.traverse.hub.routing.HubRoutingTable;
import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import java.util.List;

/**
 * The hub network as this hub sees it at one moment: reachable hubs' descriptions (this hub's
 * own first, then nearest first), the routes, and the index of nodes and names.
 */
public record NetworkView(NodeId self, List<HubDescription> nearestFirst, HubRoutingTable routes, NetworkIndex index) {
    public NetworkView {
        nearestFirst = List.copyOf(nearestFirst);
    }

    public HubDescription description(NodeId hub) {
        for (HubDescription d : nearestFirst) {
            if (d.hubId().equals(hub)) {
                return d;
            }
        }
        return null;
    }

    /** Hops from this hub (0 for itself), or -1 if unreachable. */
    public int hops(NodeId hub) {
        if (hub.equals(self)) {
            return 0;
        }
        return routes.route(hub).map(HubRoutingTable.Route::hops).orElse(-1);
    }
}
