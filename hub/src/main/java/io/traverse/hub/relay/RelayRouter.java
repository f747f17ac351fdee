package io.traverse.hub.relay;

import io.traverse.hub.link.Link;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.routing.HubRoutingTable;
import io.traverse.hub.sidechannel.ReversePaths;
import io.traverse.hub.sidechannel.SideChannelNetwork;
import io.traverse.identity.NodeId;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayKind;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers or forwards RELAY frames by their destination node, one frame at a time, the way the
 * side channel routes its messages, and answers a frame that cannot go on with a RESET to the node
 * that sent it. A RESET that cannot go on is dropped (never a RESET about a RESET, so nothing can
 * loop). No state per connection: the two nodes run flow control end to end with CREDIT frames,
 * so the bytes of a connection in flight are bounded by the credit its receiver granted.
 * State-loop only, except the counters.
 */
public final class RelayRouter {
    private static final Logger log = LoggerFactory.getLogger(RelayRouter.class);

    private final SideChannelNetwork network;
    private final HubMetrics metrics;
    private final ReversePaths reversePaths;
    private final LongAdder delivered = new LongAdder();
    private final LongAdder forwarded = new LongAdder();
    private final Map<RelayFailure, LongAdder> failures = new EnumMap<>(RelayFailure.class);

    /**
     * @param reversePathMillis how long a remote node stays reachable through the neighbour its
     *        frames last came from, while gossip does not list it yet
     */
    public RelayRouter(SideChannelNetwork network, HubMetrics metrics, long reversePathMillis) {
        this.network = network;
        this.metrics = metrics;
        this.reversePaths = new ReversePaths(ReversePaths.DEFAULT_CAPACITY, TimeUnit.MILLISECONDS.toNanos(reversePathMillis));
        for (RelayFailure failure : RelayFailure.values()) {
            failures.put(failure, new LongAdder());
        }
    }

    /**
     * A frame from a node connected here. The caller has checked that the node is the frame's
     * source (the opener of a frame toward the acceptor, or the acceptor of one toward the opener).
     */
    public void fromLocalNode(Relay frame) {
        route(frame);
    }

    /**
     * A frame forwarded by a neighbouring hub. Its source is remembered as reachable through that
     * neighbour for a while, so the answer to an OPEN finds its way back before gossip lists the
     * opener's node.
     */
    public void fromHub(Relay frame, NodeId neighbour) {
        reversePaths.remember(frame.source(), neighbour, System.nanoTime());
        route(frame);
    }

    private void route(Relay frame) {
        NodeId destination = frame.destination();
        Link local = network.localNodeLink(destination);
        if (local != null) {
            // Sent even when the node reads slowly: its own grants bound what can be queued for it.
            local.send(frame);
            delivered.increment();
            metrics.relayDelivered(frame.payload().length);
            return;
        }
        NodeId hub = network.hubOf(destination);
        Link next;
        if (hub == null || hub.equals(network.selfId())) {
            NodeId back = reversePaths.neighbourFor(destination, System.nanoTime());
            next = back == null ? null : network.hubLink(back);
            if (next == null) {
                fail(frame, RelayFailure.UNKNOWN_NODE, "no hub knows node " + destination);
                return;
            }
        } else {
            Optional<HubRoutingTable.Route> route = network.routes().route(hub);
            next = route.map(r -> network.hubLink(r.nextHop())).orElse(null);
            if (next == null) {
                fail(frame, RelayFailure.NO_ROUTE, "hub " + hub + " of node " + destination + " is not reachable from hub "
                        + network.selfId());
                return;
            }
        }
        if (frame.hopsLeft() == 0) {
            fail(frame, RelayFailure.HOP_LIMIT, "hop limit reached at hub " + network.selfId() + " on the way to node "
                    + destination);
            return;
        }
        // No writability check: dropping a DATA frame would corrupt the stream, and what waits in
        // the link's buffer is bounded by the credit the receivers granted.
        next.send(frame.forwarded());
        forwarded.increment();
        metrics.relayForwarded(frame.payload().length);
    }

    private void fail(Relay frame, RelayFailure failure, String reason) {
        failures.get(failure).increment();
        metrics.relayFailure(failure.name());
        if (frame.kind() == RelayKind.RESET) {
            log.debug("Dropped {}: {}", frame, reason);
            return;
        }
        route(frame.resetToSender(reason));
    }

    public long delivered() {
        return delivered.sum();
    }

    public long forwarded() {
        return forwarded.sum();
    }

    /** Frames answered with a RESET (or dropped, for a RESET) by cause, as counted at this hub. */
    public Map<RelayFailure, Long> failures() {
        Map<RelayFailure, Long> out = new EnumMap<>(RelayFailure.class);
        failures.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
