package io.traverse.hub.sidechannel;

import io.traverse.hub.AdmissionLimit;
import io.traverse.hub.link.Link;
import io.traverse.hub.link.LinkKind;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.routing.HubRoutingTable;
import io.traverse.identity.NodeId;
import io.traverse.wire.SideMessage;
import io.traverse.wire.SideMessageError;
import io.traverse.wire.SideMessageKind;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers or forwards side messages and turns every failure of a REQUEST into an ERROR for its
 * sender. A REPLY or ERROR that cannot be delivered is dropped (never an error about an error, so
 * nothing can loop).
 *
 * <p>Routing is decided on the state loop; the link it chose for a destination is remembered,
 * and later messages to that destination go out from the I/O thread that read them
 * ({@link #routeAtOnce}), without the two hand-overs through the state loop (link thread to state
 * loop to link thread), until anything in the network changes ({@link #forgetNextLinks()}). That
 * is what a side-channel round trip mostly cost at a hub. Anything unusual (unknown sender link,
 * hop limit, congestion, a full per-node table) goes the state-loop way, which also produces the
 * errors. State-loop only, except {@link #routeAtOnce}, the per-node tables (atomic per node) and
 * the counters.
 */
public final class SideChannelRouter {
    private static final Logger log = LoggerFactory.getLogger(SideChannelRouter.class);

    private final SideChannelNetwork network;
    private final String hubName;
    private final HubMetrics metrics;
    private final int maxPendingPerNode;
    private final long requestTimeoutNanos;
    /** Per node; each table is only touched inside {@code compute*} on its key, so the I/O threads may share it. */
    private final Map<NodeId, PendingRequests> pending = new ConcurrentHashMap<>();
    /** Destination node → the link the state loop last sent its side messages on (gossip routes only). */
    private final Map<NodeId, Link> nextLinks = new ConcurrentHashMap<>();
    /** Peer (node or hub) → its current link, as the state loop saw it: messages from other links take the state-loop way. */
    private final Map<NodeId, Link> sourceLinks = new ConcurrentHashMap<>();

    private final ReversePaths reversePaths;
    private final LongAdder delivered = new LongAdder();
    private final LongAdder forwarded = new LongAdder();
    private final Map<SideMessageError, LongAdder> errors = new EnumMap<>(SideMessageError.class);

    /**
     * @param hubName           the hub's name, as refusals name it
     * @param maxPendingPerNode side-channel requests one node of this hub may have waiting for an answer
     *                          ({@link AdmissionLimit#SIDE_REQUESTS_PER_NODE})
     */
    public SideChannelRouter(
            SideChannelNetwork network,
            String hubName,
            HubMetrics metrics,
            int maxPendingPerNode,
            long requestTimeoutMillis) {
        this.hubName = hubName;
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
        if (message.kind() == SideMessageKind.REQUEST && !tryAddPending(sender, message, nowNanos)) {
            // That one request is refused; the node's link, its answers and its other requests go on.
            metrics.overloaded(AdmissionLimit.SIDE_REQUESTS_PER_NODE);
            fail(
                    message,
                    SideMessageError.OVERLOAD,
                    AdmissionLimit.SIDE_REQUESTS_PER_NODE.reason(
                            "node " + sender + " has " + maxPendingPerNode
                                    + " side-channel requests waiting for an answer",
                            hubName));
            return;
        }
        route(message);
    }

    /** As {@link #fromLocalNode(NodeId, SideMessage, long)}, from the node's current link {@code link}. */
    public void fromLocalNode(Link link, SideMessage message, long nowNanos) {
        sourceLinks.put(link.peerId(), link);
        fromLocalNode(link.peerId(), message, nowNanos);
    }

    /** As {@link #fromHub(SideMessage, NodeId)}, from the neighbour's current link {@code link}. */
    public void fromHub(SideMessage message, Link link) {
        sourceLinks.put(link.peerId(), link);
        fromHub(message, link.peerId());
    }

    /**
     * Sends a side message at once on the I/O thread that read it from {@code from}, when the
     * state loop has routed to its destination before and nothing changed since; false when it
     * must take the state-loop way. The caller ensures no earlier message of {@code from} is
     * still waiting at the state loop (order per link is kept).
     */
    public boolean routeAtOnce(SideMessage message, Link from) {
        Link next = nextLinks.get(message.to());
        if (next == null || sourceLinks.get(from.peerId()) != from || !next.isOpen() || !next.isWritable()) {
            return false;
        }
        boolean toHub = next.kind() == LinkKind.HUB;
        if (toHub && message.hopsLeft() == 0) {
            return false;
        }
        long now = System.nanoTime();
        if (from.kind() == LinkKind.NODE) {
            if (!message.from().equals(from.peerId())
                    || (message.kind() == SideMessageKind.REQUEST && !tryAddPending(from.peerId(), message, now))) {
                return false; // the state loop says why (protocol error, OVERLOAD)
            }
        } else if (from.kind() == LinkKind.HUB) {
            reversePaths.remember(message.from(), from.peerId(), now);
        } else {
            return false;
        }
        // Queued on the next link's loop, never written inline: a message the state loop routed
        // just before this one is a task queued there (the state loop writes from its own thread),
        // and an inline write on that same loop would overtake it.
        next.execute(() -> send(next, message));
        return true;
    }

    /** The network changed (nodes, hub links, routes): route afresh on the state loop. */
    public void forgetNextLinks() {
        nextLinks.clear();
        sourceLinks.clear();
    }

    private boolean tryAddPending(NodeId sender, SideMessage message, long nowNanos) {
        boolean[] added = new boolean[1];
        pending.compute(sender, (id, requests) -> {
            PendingRequests r = requests != null ? requests : new PendingRequests(maxPendingPerNode);
            r.expire(nowNanos);
            added[0] = r.tryAdd(message.messageId(), nowNanos + requestTimeoutNanos);
            return r;
        });
        return added[0];
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
        for (NodeId node : pending.keySet()) {
            pending.computeIfPresent(node, (id, requests) -> {
                requests.expire(nowNanos);
                return requests.size() == 0 ? null : requests;
            });
        }
    }

    private void route(SideMessage message) {
        Link local = network.localNodeLink(message.to());
        if (local != null) {
            if (deliver(local, message)) {
                nextLinks.put(message.to(), local);
            }
            return;
        }
        NodeId hub = network.hubOf(message.to());
        Link next;
        boolean byGossip = !(hub == null || hub.equals(network.selfId()));
        if (!byGossip) {
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
                fail(
                        message,
                        SideMessageError.NO_ROUTE,
                        "hub " + hub + " of node " + message.to() + " is not reachable from hub " + network.selfId());
                return;
            }
        }
        if (message.hopsLeft() == 0) {
            fail(
                    message,
                    SideMessageError.HOP_LIMIT,
                    "hop limit reached at hub " + network.selfId() + " on the way to node " + message.to());
            return;
        }
        if (!next.isWritable()) {
            fail(
                    message,
                    SideMessageError.OVERLOAD,
                    "the link from hub " + network.selfId() + " to hub " + next.peerId() + " is congested");
            return;
        }
        send(next, message);
        if (byGossip) {
            nextLinks.put(message.to(), next);
        }
    }

    /** False if the node's link is congested (the sender has had its error). */
    private boolean deliver(Link nodeLink, SideMessage message) {
        if (!nodeLink.isWritable()) {
            completePending(message);
            fail(
                    message,
                    SideMessageError.OVERLOAD,
                    "node " + message.to() + " does not read its hub link fast enough");
            return false;
        }
        send(nodeLink, message);
        return true;
    }

    /** Sends on a link the message may go out on (checked): forwarded to a hub, or delivered to a node of this hub. */
    private void send(Link next, SideMessage message) {
        if (message.kind() == SideMessageKind.REQUEST) {
            metrics.sideRequest(message.service());
        }
        if (next.kind() == LinkKind.HUB) {
            next.send(message.forwarded());
            forwarded.increment();
            metrics.sideForwarded(message.payload().length);
        } else {
            completePending(message);
            next.send(message);
            delivered.increment();
            metrics.sideDelivered();
        }
    }

    /** An answer reaching a node of this hub frees its request's slot in the node's table. */
    private void completePending(SideMessage message) {
        if (message.kind() != SideMessageKind.REQUEST) {
            pending.computeIfPresent(message.to(), (id, requests) -> {
                requests.complete(message.messageId());
                return requests;
            });
        }
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
