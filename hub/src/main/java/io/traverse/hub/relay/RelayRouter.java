package io.traverse.hub.relay;

import io.traverse.hub.link.Link;
import io.traverse.hub.link.LinkKind;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.routing.HubRoutingTable;
import io.traverse.hub.sidechannel.ReversePaths;
import io.traverse.hub.sidechannel.SideChannelNetwork;
import io.traverse.identity.NodeId;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import io.traverse.wire.RelayKind;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers or forwards RELAY frames by their destination node, one frame at a time, the way the
 * side channel routes its messages, and answers a frame that cannot go on with a RESET to the node
 * that sent it. A RESET that cannot go on is dropped (never a RESET about a RESET, so nothing can
 * loop). The two nodes run flow control end to end with CREDIT frames, so the bytes of a
 * connection in flight are bounded by the credit its receiver granted; what the hub keeps per
 * connection is what admission needs and the delivery windows of its ends here
 * ({@link RelayedConnections}): an OPEN beyond a limit is
 * answered with a RESET whose reason starts with OVERLOAD, and a node whose link goes gives back
 * its connections at once, their other ends getting a RESET.
 *
 * <p>The first frame to a destination is routed on the state loop, which remembers the link it
 * goes out on; later frames to that destination go out on the I/O thread that read them
 * ({@link #relayAtOnce}), with no hand-over between threads, until anything in the network changes
 * ({@link #forgetNextLinks()}). Frames are always sent on the I/O thread of the link they came
 * from, and skip the state loop only when no earlier frame of that link is still there, so they
 * leave in the order they came. Whichever thread passes on a frame that opens or ends a
 * connection with an end here counts it ({@link RelayedConnections} is lock-free); an OPEN a limit
 * refuses is left to the state loop, which answers it. A frame's payload is passed on as the
 * slice of the bytes read, never copied (payloads under {@value #OWN_COPY_BELOW} bytes are copied, so that a small frame
 * queued for a slow link pins no large read buffer). The DATA of a connection with an end at this
 * hub is held back by itself on the link it leaves on (the receiving node's, or the hub link toward
 * a far receiver): by the receiver's credit, which the hub passes on at most a
 * {@link DeliveryWindow} beyond what it wrote to that link once the receiver grants more than that,
 * so such frames (and small ones) queue without holding back the link they came from when that
 * link carries other connections, up to what the windows allow together
 * ({@link DeliveryWindow#queueBound}). Otherwise, when the next link
 * cannot take more, the link the frame came from stops reading until it can (backpressure rather
 * than queueing; bounded, see {@link Link#holdReadingUntilWritable}). State-loop only, except
 * {@link #relayAtOnce} and the counters.
 */
public final class RelayRouter {
    /** Payloads smaller than this are copied before they are queued (CREDIT, FIN, small DATA); larger ones travel as slices. */
    static final int OWN_COPY_BELOW = 8 * 1024;
    /**
     * Bytes a long-poll session's link may have queued above its low water mark before even frames
     * within their connection's window hold back the links they come from: a session fails when
     * 8 MiB wait for its node (queues of 8 MiB did fail one), so it keeps the short queue it had.
     */
    static final long LONG_POLL_BACKLOG = DeliveryWindow.SIZE;
    /**
     * What all of this hub's links together may have queued beyond their low marks before even
     * frames within their connections' windows hold back the links they come from: many nodes
     * with a few busy connections each may not make the hub buffer a window of every one.
     */
    static final long MAX_HUB_BACKLOG = 256L * 1024 * 1024;
    /** How stale the hub-wide backlog may be ({@link #backlog()}). */
    static final long BACKLOG_RECOUNT_MILLIS = 10;

    private static final Logger log = LoggerFactory.getLogger(RelayRouter.class);

    private final SideChannelNetwork network;
    private final Executor stateLoop;
    private final HubMetrics metrics;
    private final ReversePaths reversePaths;
    private final RelayedConnections connections;
    private final LongAdder delivered = new LongAdder();
    private final LongAdder forwarded = new LongAdder();
    private final Map<RelayFailure, LongAdder> failures = new EnumMap<>(RelayFailure.class);
    /** Links found over their high mark when a relay frame was queued on them (for {@link #backlog()}). */
    private final Set<Link> backlogged = ConcurrentHashMap.newKeySet();

    private final AtomicLong backlogCountedAt = new AtomicLong();
    private volatile long backlog;
    /** Destination node → the link the state loop last sent its frames out on. */
    private final Map<NodeId, Link> nextLinks = new ConcurrentHashMap<>();

    /**
     * @param reversePathMillis how long a remote node stays reachable through the neighbour its
     *        frames last came from, while gossip does not list it yet
     */
    public RelayRouter(
            SideChannelNetwork network,
            Executor stateLoop,
            HubMetrics metrics,
            long reversePathMillis,
            RelayedConnections connections) {
        this.network = network;
        this.stateLoop = stateLoop;
        this.metrics = metrics;
        this.connections = connections;
        metrics.relayedConnections(connections::size, connections::setups);
        this.reversePaths =
                new ReversePaths(ReversePaths.DEFAULT_CAPACITY, TimeUnit.MILLISECONDS.toNanos(reversePathMillis));
        for (RelayFailure failure : RelayFailure.values()) {
            failures.put(failure, new LongAdder());
        }
    }

    /**
     * A frame from a node connected here. The caller has checked that the node is the frame's
     * source (the opener of a frame toward the acceptor, or the acceptor of one toward the opener).
     */
    public void fromLocalNode(Relay frame, Link from) {
        route(frame, from);
    }

    /**
     * A frame forwarded by a neighbouring hub. Its source is remembered as reachable through that
     * neighbour for a while, so the answer to an OPEN finds its way back before gossip lists the
     * opener's node.
     */
    public void fromHub(Relay frame, Link from) {
        reversePaths.remember(frame.source(), from.peerId(), System.nanoTime());
        route(frame, from);
    }

    /**
     * Relays a frame on the I/O thread of the link it came from, if the state loop has routed a
     * frame to its destination since the network last changed. Takes over the frame and returns
     * true, or returns false and leaves the frame to the state loop (which also judges frames a
     * node sends in another's name). Thread-safe.
     */
    public boolean relayAtOnce(Relay frame, Link from) {
        Link next = nextLinks.get(frame.destination());
        if (next == null
                || !next.isOpen()
                || !from.carriesRelays()
                || (from.kind() != LinkKind.HUB && !frame.source().equals(from.peerId()))
                || (next.kind() == LinkKind.HUB && frame.hopsLeft() == 0)) {
            return false;
        }
        if (frame.kind() == RelayKind.OPEN) {
            boolean openerHere = from.kind() != LinkKind.HUB;
            boolean acceptorHere = next.kind() != LinkKind.HUB;
            if ((openerHere || acceptorHere) && connections.admit(frame, openerHere, acceptorHere) != null) {
                return false; // refused: the state loop answers it (and judges it afresh)
            }
        } else if (RelayedConnections.changes(frame.kind())) {
            connections.observe(frame);
        }
        send(frame, from, next);
        return true;
    }

    /** A node linked here: its relayed connections are counted from now on. */
    public void nodeJoined(NodeId node) {
        connections.nodeJoined(node);
    }

    /** The network changed (nodes, hub links, routes): route afresh on the state loop. */
    public void forgetNextLinks() {
        nextLinks.clear();
    }

    private void send(Relay frame, Link from, Link next) {
        // A connection with an end here is held back by itself on the link its DATA leaves on: a
        // node's link, or the hub link toward the far end for DATA a node of this hub sends.
        boolean windowed = from != null && (next.kind() != LinkKind.HUB || from.kind() != LinkKind.HUB);
        if (windowed && grantsCredit(frame.kind())) {
            frame = passOnCredit(frame, from);
        }
        int bytes = frame.payloadLength();
        if (bytes > 0 && bytes < OWN_COPY_BELOW) {
            // A slice of the read buffer would keep all of it alive while it waits on a slow link.
            frame = frame.withOwnPayload();
        }
        if (frame.kind() == RelayKind.OPEN) {
            metrics.routedOpen();
        }
        // What waits for the next link is bounded per connection when it is a DATA frame within the
        // window this hub passed on, or a small frame of a connection with an end here: then a slow
        // link holds back only the connections on it, and the sender's link, with its other
        // connections, is read on.
        boolean toNode = next.kind() != LinkKind.HUB;
        Relay out = toNode ? frame : frame.forwarded();
        boolean bounded = windowed && sendWithinWindow(out, next);
        if (!windowed) {
            next.send(out);
        }
        if (toNode) {
            delivered.increment();
            metrics.relayDelivered(bytes);
        } else {
            forwarded.increment();
            metrics.relayForwarded(bytes);
        }
        if (!next.isWritable()) {
            backlogged.add(next);
            if (from != null && !(bounded && carriesOthers(from) && withinQueueBound(next))) {
                metrics.relayHold();
                from.holdReadingUntilWritable(next);
            }
        }
    }

    /**
     * Whether holding this link's reading could hold up other connections: a hub link, or a node
     * with more than one relayed connection here. A node's link that carries one connection is
     * held as before — pure backpressure, and on a busy core it keeps one stream's pipeline
     * shorter (a pinned single stream over the hub link ran at 100 MB/s without the hold, 170–510
     * with it).
     */
    private boolean carriesOthers(Link from) {
        return from.kind() == LinkKind.HUB || connections.heldBy(from.peerId()) > 1;
    }

    /**
     * Whether a link has no more queued than the windows of the connections on it allow together:
     * a node's ({@link DeliveryWindow#queueBound}), a long-poll session's short queue, or a hub
     * link's {@link DeliveryWindow#MAX_LINK_QUEUE} (its connections' windows shrink only once it
     * is congested, so it must take what they were passed before).
     */
    private boolean withinQueueBound(Link link) {
        long bound = link.kind() == LinkKind.HUB
                ? DeliveryWindow.MAX_LINK_QUEUE
                : link.isLongPollSession() ? LONG_POLL_BACKLOG : DeliveryWindow.queueBound(sharing(link));
        return link.bytesOverHighWaterMark() <= bound && backlog() <= MAX_HUB_BACKLOG;
    }

    /**
     * What all links over their high mark have queued beyond their low marks, recounted at most
     * every {@value #BACKLOG_RECOUNT_MILLIS} ms by whichever thread asks first (a pass over the
     * links that were over their high mark, not over all links). Any thread.
     */
    private long backlog() {
        long now = System.nanoTime();
        long last = backlogCountedAt.get();
        if (now - last > TimeUnit.MILLISECONDS.toNanos(BACKLOG_RECOUNT_MILLIS)
                && backlogCountedAt.compareAndSet(last, now)) {
            long sum = 0;
            for (Iterator<Link> it = backlogged.iterator(); it.hasNext(); ) {
                Link link = it.next();
                long bytes = link.isOpen() ? link.bytesOverHighWaterMark() : 0;
                if (bytes == 0) {
                    it.remove(); // added again the next time it is found over its high mark
                }
                sum += bytes;
            }
            backlog = sum;
        }
        return backlog;
    }

    /**
     * How many connections may share a link's windows: a node's relayed connections here, or for
     * a hub link every connection with an end here (any of them may cross it).
     */
    private int sharing(Link link) {
        return link.kind() == LinkKind.HUB ? connections.size() : connections.heldBy(link.peerId());
    }

    private static boolean grantsCredit(RelayKind kind) {
        return switch (kind) {
            case OPEN, ACCEPT, CREDIT, PONG -> true;
            default -> false;
        };
    }

    /**
     * A frame granting credit that comes in on the link its connection's DATA leaves this hub on
     * ({@code from}: the receiving node's link, or the hub link toward a far receiver): passed on
     * no further than its window allows. When the window starts to follow the writes, a barrier on
     * that link tells when what was queued before is written.
     */
    private Relay passOnCredit(Relay frame, Link from) {
        DeliveryWindow window = connections.window(frame, false);
        if (window == null) {
            return frame;
        }
        // The link the connection's DATA last left on; before any, the one the credit came on
        // (the same but around a node's switch to its data link, or where hub routes differ by
        // direction).
        Link out = window.link(from);
        long granted = frame.credit();
        long passed = window.granted(granted, DeliveryWindow.sizeFor(sharing(out)), !out.isWritable());
        long barrierAt = window.barrier();
        if (barrierAt >= 0) {
            // A barrier can pass DATA that another loop has not queued yet: then up to a window
            // more is passed on, once per connection.
            Relay template = frame;
            out.sendBarrier(() -> passOn(
                    window.written(barrierAt),
                    template.connectionId(),
                    template.opener(),
                    template.acceptor(),
                    template.direction()));
        }
        // Only ever lowered: a limit above this frame's was passed on before (senders keep the highest).
        return passed >= granted ? frame : frame.withCredit(passed);
    }

    /**
     * Sends the sender a CREDIT of this hub's if {@code limit} is one (≥ 0), routed like the node's
     * own: at once on this thread when the state loop has routed to the sender since the network
     * last changed (a limit overtaking another is harmless, senders keep the highest), else there.
     */
    private void passOn(long limit, long id, NodeId opener, NodeId acceptor, RelayDirection towardSender) {
        if (limit < 0) {
            return;
        }
        metrics.relayWindowCredit();
        Relay credit = Relay.credit(id, opener, acceptor, towardSender, limit);
        Link next = nextLinks.get(credit.destination());
        if (next != null && next.isOpen()) {
            send(credit, null, next);
        } else {
            stateLoop.execute(() -> route(credit, null));
        }
    }

    /**
     * Sends a frame of a connection with an end here that came in on a link; true if what it adds
     * to the next link's queue is bounded: a small frame, or DATA that keeps to the window passed
     * on for its connection (whose writes pass on more credit if the window follows them).
     */
    private boolean sendWithinWindow(Relay frame, Link next) {
        if (frame.kind() != RelayKind.DATA && frame.kind() != RelayKind.SEALED) {
            next.send(frame);
            return true;
        }
        long offset = frame.streamOffset();
        int length = frame.streamBytes();
        DeliveryWindow window = connections.window(frame, true);
        int covered = window == null ? DeliveryWindow.NOT_COVERED : window.sending(offset, length, next);
        if (covered == DeliveryWindow.COVERED_REPORT_WRITE) {
            long end = offset + length;
            long id = frame.connectionId();
            NodeId opener = frame.opener();
            NodeId acceptor = frame.acceptor();
            RelayDirection back = frame.direction().reversed();
            // Only once the receiver granted more than a window ahead, or the link is congested: a
            // write future per frame is not free.
            next.send(frame, () -> passOn(window.written(end), id, opener, acceptor, back));
        } else {
            next.send(frame);
        }
        return covered != DeliveryWindow.NOT_COVERED;
    }

    /**
     * A node of this hub lost its link: its relayed connections are given back at once, and the
     * other end of each gets a RESET saying so.
     */
    public void nodeLeft(NodeId node) {
        for (Relay reset : connections.nodeLeft(node)) {
            route(reset, null);
        }
    }

    private void route(Relay frame, Link from) {
        NodeId destination = frame.destination();
        if (frame.kind() != RelayKind.OPEN && RelayedConnections.changes(frame.kind())) {
            connections.observe(frame);
        }
        Link local = network.localNodeRelayLink(destination);
        if (local != null) {
            if (!admitted(frame, from, true)) {
                return;
            }
            nextLinks.put(destination, local);
            sendInOrder(frame, from, local);
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
                fail(
                        frame,
                        RelayFailure.NO_ROUTE,
                        "hub " + hub + " of node " + destination + " is not reachable from hub " + network.selfId());
                return;
            }
        }
        if (frame.hopsLeft() == 0) {
            fail(
                    frame,
                    RelayFailure.HOP_LIMIT,
                    "hop limit reached at hub " + network.selfId() + " on the way to node " + destination);
            return;
        }
        if (!admitted(frame, from, false)) {
            return;
        }
        nextLinks.put(destination, next);
        sendInOrder(frame, from, next);
    }

    /**
     * True unless the frame is an OPEN with an end here that a limit refuses; such an OPEN is
     * answered with a RESET to its opener, counted, and released.
     */
    private boolean admitted(Relay frame, Link from, boolean acceptorHere) {
        if (frame.kind() != RelayKind.OPEN) {
            return true;
        }
        boolean openerHere = from != null && from.kind() != LinkKind.HUB;
        if (!openerHere && !acceptorHere) {
            return true;
        }
        RelayedConnections.Refusal refusal = connections.admit(frame, openerHere, acceptorHere);
        if (refusal == null) {
            return true;
        }
        metrics.overloaded(refusal.limit());
        log.debug("Refused {}: {}", frame, refusal.reason());
        fail(frame, RelayFailure.OVERLOAD, refusal.reason());
        return false;
    }

    /** Sends on the I/O thread of the link the frame came from, so that frames of a connection never overtake each other. */
    private void sendInOrder(Relay frame, Link from, Link next) {
        if (from == null) {
            send(frame, null, next);
        } else {
            from.execute(() -> send(frame, from, next));
        }
    }

    private void fail(Relay frame, RelayFailure failure, String reason) {
        failures.get(failure).increment();
        metrics.relayFailure(failure.name());
        try {
            if (frame.kind() == RelayKind.RESET) {
                log.debug("Dropped {}: {}", frame, reason);
                return;
            }
            route(frame.resetToSender(reason), null);
        } finally {
            frame.release();
        }
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
