package io.traverse.hub;

import io.netty.util.concurrent.EventExecutor;
import io.traverse.hub.gossip.HubDirectory;
import io.traverse.hub.routing.HubRoutingTable;
import io.traverse.hub.routing.HubTopology;
import io.traverse.identity.NodeId;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * This hub's routes and when they are computed: the routing graph is kept up to date one
 * description at a time, and the routes are recomputed from it once per burst of changes, on the
 * state loop. State loop only.
 */
final class RouteScheduler {
    /** Changes of the graph within this gap (plus {@link #ROUTES_GAP_PER_HUB_NANOS} per known hub) cost one route computation. */
    static final long MIN_ROUTES_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

    static final long ROUTES_GAP_PER_HUB_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    static final long MAX_ROUTES_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final NodeId selfId;
    /** The routing graph, updated as descriptions and links change; the routes are computed from it. */
    private final HubTopology topology;

    private final HubDirectory directory;
    private final EventExecutor stateLoop;
    /** Run when the graph changes: what was derived from the old one is stale. */
    private final Runnable graphChanged;
    /** Run after each computation: what was derived from the old routes is stale. */
    private final Runnable recomputed;

    private HubRoutingTable routes;
    private boolean routesDirty;
    private long lastRoutesNanos = System.nanoTime() - MIN_ROUTES_GAP_NANOS;
    private long routesChangedNanos = System.nanoTime();

    RouteScheduler(
            NodeId selfId,
            HubDirectory directory,
            EventExecutor stateLoop,
            Runnable graphChanged,
            Runnable recomputed) {
        this.selfId = selfId;
        this.topology = new HubTopology(selfId);
        this.directory = directory;
        this.stateLoop = stateLoop;
        this.graphChanged = graphChanged;
        this.recomputed = recomputed;
        this.routes = topology.routes();
    }

    /** The routes as last computed. */
    HubRoutingTable routes() {
        return routes;
    }

    /** {@link System#nanoTime()} when the routing table last changed. */
    long routesChangedNanos() {
        return routesChangedNanos;
    }

    /**
     * Lists the neighbours a hub lists now (null: the hub is forgotten).
     *
     * @return whether an edge came or went, so that the routes need computing
     */
    boolean list(NodeId hub, Set<NodeId> neighbours) {
        return topology.list(hub, neighbours);
    }

    /** This hub's own hub links changed: the routing graph lists them afresh. State loop. */
    void ownLinksChanged(Set<NodeId> linked) {
        topology.list(selfId, Set.copyOf(linked));
        topologyChanged();
    }

    /**
     * The graph changed: recompute the routes once the tasks queued now are done, and at most once
     * per {@link #MIN_ROUTES_GAP_NANOS} (longer in larger networks), so that a burst of descriptions (a new link brings the
     * whole directory; in a dense network every change arrives from every neighbour) costs one
     * computation, not one per description. Routes lag the gossip by at most that gap.
     */
    void topologyChanged() {
        graphChanged.run();
        if (!routesDirty) {
            routesDirty = true;
            long gap =
                    Math.min(MAX_ROUTES_GAP_NANOS, MIN_ROUTES_GAP_NANOS + ROUTES_GAP_PER_HUB_NANOS * directory.size());
            long wait = lastRoutesNanos + gap - System.nanoTime();
            if (wait <= 0) {
                stateLoop.execute(this::recomputeRoutes);
            } else {
                stateLoop.schedule(this::recomputeRoutes, wait, TimeUnit.NANOSECONDS);
            }
        }
    }

    private void recomputeRoutes() {
        routesDirty = false;
        lastRoutesNanos = System.nanoTime();
        HubRoutingTable previous = routes;
        routes = topology.routes();
        if (!routes.routes().equals(previous.routes())) {
            routesChangedNanos = lastRoutesNanos;
        }
        directory.markReachable(selfId, routes.routes().keySet(), System.nanoTime());
        recomputed.run();
    }
}
