package io.traverse.hub.sidechannel;

import io.traverse.hub.link.Link;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.routing.HubRoutingTable;
import io.traverse.identity.NodeId;
import io.traverse.wire.SideMessage;
import io.traverse.wire.SideMessageError;
import io.traverse.wire.SideMessageKind;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers or forwards side messages and turns every failure of a REQUEST into an ERROR for its
 * sender. A REPLY or ERROR that cannot be delivered is dropped (never an error about an error, so
 * nothing can loop). State-loop only, except the counters.
 */
public final class SideChannelRouter {
    private static final Logger log = LoggerFactory.getLogger(SideChannelRouter.class);

    private final SideChannelNetwork network;
    private final HubMetrics metrics;
    private final int maxPendingPerNode;
    private final long requestTimeoutNanos;
    private final Map<NodeId, PendingRequests> pending = new HashMap<>();
    private final ReversePaths reversePaths;
    private final LongAdder delivered = new LongAdder();
    private final LongAdder forwarded = new LongAdder();
    private final Map<SideMessageError, LongAdder> errors = new EnumMap<>(SideMessageError.class);

    public SideChannelRouter(SideChannelNetwork network, HubMetrics metrics, int maxPendingPerNode, long requestTimeoutMillis) {
        this.requestTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(requestTimeoutMillis);
        this.reversePaths = new ReversePaths(ReversePaths.DEFAULT_CAPACITY, requestTimeoutNanos);
        this.network = network;
        this.metrics = metrics;
        this.maxPendingPerNode = maxPendingPerNode;
        for (SideMessageError error : SideMessageError.values()) {
            errors.put(error, new LongAdder());
        }
    }

    /**
     * A message from a node connected here. The caller has checked that {@code from} is that
     * node (a node cannot send in another's name).
     */
    public void fromLocalNode(NodeId sender, SideMessage message, long nowNanos) {
        if (message.kind() == SideMessageKind.REQUEST) {
            PendingRequests requests = pending.computeIfAbsent(sender, id -> new PendingRequests(maxPendingPerNode));
            requests.expire(nowNanos);
            if (!requests.tryAdd(message.messageId(), nowNanos + requestTimeoutNanos)) {
                fail(message, SideMessageError.OVERLOAD, "node " + sender + " has " + maxPendingPerNode
                        + " requests pending at hub " + network.selfId());
                return;
            }
        }
        route(message);
    }

    /**
     * A message forwarded by a neighbouring hub. Its sender is remembered as reachable through
     * that neighbour for a while: the answer can go back even before gossip about the sender's
     * node has arrived here.
     */
    public void fromHub(SideMessage message, NodeId neighbour) {
        reversePaths.remember(message.from(), neighbour, System.nanoTime());
        route(message);
    }

    /** A node left: forget its pending requests. */
    public void nodeLeft(NodeId node) {
        pending.remove(node);
    }

    /** Drops pending requests whose answer did not come in time. */
    public void expire(long nowNanos) {
        pending.values().removeIf(requests -> {
            requests.expire(nowNanos);
            return requests.size() == 0;
        });
    }

    private void route(SideMessage message) {
        Link local = network.localNodeLink(message.to());
        if (local != null) {
            deliver(local, message);
            return;
        }
        NodeId hub = network.hubOf(message.to());
        Link next;
        if (hub == null || hub.equals(network.selfId())) {
            NodeId back = reversePaths.neighbourFor(message.to(), System.nanoTime());
            next = back == null ? null : network.hubLink(back);
            if (next == null) {
                fail(message, SideMessageError.UNKNOWN_NODE, "no hub knows node " + message.to());
                return;
            }
        } else {
            HubRoutingTable routes = network.routes();
            Optional<HubRoutingTable.Route> route = routes.route(hub);
            next = route.map(r -> network.hubLink(r.nextHop())).orElse(null);
            if (next == null) {
                fail(message, SideMessageError.NO_ROUTE, "hub " + hub + " of node " + message.to() + " is not reachable from hub "
                        + network.selfId());
                return;
            }
        }
        if (message.hopsLeft() == 0) {
            fail(message, SideMessageError.HOP_LIMIT, "hop limit reached at hub " + network.selfId() + " on the way to node "
                    + message.to());
            return;
        }
        if (!next.isWritable()) {
            fail(message, SideMessageError.OVERLOAD, "the link from hub " + network.selfId() + " to hub " + next.peerId()
                    + " is congested");
            return;
        }
        next.send(message.forwarded());
        forwarded.increment();
        metrics.sideForwarded(message.payload().length);
    }

    private void deliver(Link nodeLink, SideMessage message) {
        if (message.kind() != SideMessageKind.REQUEST) {
            PendingRequests requests = pending.get(message.to());
            if (requests != null) {
                requests.complete(message.messageId());
            }
        }
        if (!nodeLink.isWritable()) {
            fail(message, SideMessageError.OVERLOAD, "node " + message.to() + " does not read its hub link fast enough");
            return;
        }
        nodeLink.send(message);
        delivered.increment();
        metrics.sideDelivered();
    }

    private void fail(SideMessage message, SideMessageError error, String reason) {
        errors.get(error).increment();
        metrics.sideError(error);
        if (message.kind() != SideMessageKind.REQUEST) {
            log.debug("Dropped {}: {}", message, reason);
            return;
        }
        route(message.error(error, reason));
    }

    public long delivered() {
        return delivered.sum();
    }

    public long forwarded() {
        return forwarded.sum();
    }

    /** Failures by kind, as counted at this hub. */
    public Map<SideMessageError, Long> errors() {
        Map<SideMessageError, Long> out = new EnumMap<>(SideMessageError.class);
        errors.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
