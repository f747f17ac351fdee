package io.traverse.routed;

import io.netty.buffer.ByteBufAllocator;
import io.traverse.identity.NodeId;
import io.traverse.logging.PeerWarnings;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.security.PeerSessions;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.FailureScope;
import io.traverse.spi.InboundConnections;
import io.traverse.spi.ModuleEvents;
import io.traverse.spi.RelayLink;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import io.traverse.wire.RelayKind;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's relayed connections: opens them (OPEN, then ACCEPT or REFUSE), accepts them into a
 * virtual port's backlog, and hands every RELAY frame from the hub link to its connection. DATA,
 * FIN or PING for a connection this node does not have is answered with a RESET. A frame belongs
 * to a connection only if it names the connection's opener, id and acceptor and travels toward
 * this end: hubs vouch for a frame's sender alone, so a third node cannot reset, answer or feed
 * another node's connection by naming its opener and id (which are random besides).
 *
 * <p>Liveness without state in the hubs, per peer node: when nothing has been heard from a node on
 * any connection to it for a probe interval (the hub keepalive, at least {@link #MIN_PROBE_MILLIS}),
 * the connection last heard from sends a PING every interval (the other end answers PONG; a hub
 * that cannot route it answers RESET); a peer heard from all the time gets one every
 * {@value #BUSY_PEER_PING_PROBES} intervals, so that its round trip is always measured
 * ({@link PeerLiveness}). When the node has been silent for {@value #DEAD_AFTER_PROBES} timeouts —
 * each the larger of the interval and the round-trip timeout its PONGs measured — every connection
 * to it is reset, so a hub or link that dies on the way ends both ends with an
 * {@link java.io.IOException}. The floor and the measured timeout are there because PINGs queue
 * behind data on busy links: a path slowed by load is slow, not dead. Losing the hub link resets
 * every connection at once.
 *
 * <p>A connection reset by the keepalive, or by a hub on the way that could not forward its
 * frames, is reported to the node's listeners as an unreachable peer ({@link ModuleEvents}).
 */
final class RoutedConnections implements RelayLink.Receiver {
    static final int DEAD_AFTER_PROBES = 3;
    static final long MIN_PROBE_MILLIS = 1000;
    /** A peer that is heard from all the time still gets a PING every this many probe intervals, to measure its round trip. */
    static final int BUSY_PEER_PING_PROBES = 4;
    /**
     * What the opener of an accepted connection may send before the application reads from it:
     * about what kernel socket buffers take before the server reads (a client may write a sizeable
     * request before it reads), but not a whole window for every connection in a backlog.
     */
    static final int BACKLOG_CREDIT = 256 * 1024;
    /**
     * REFUSE answer code of relayed connections only: the OPEN resumed a key agreement the
     * acceptor does not keep (it restarted with its key); the opener tries once more with a full one.
     */
    static final int UNKNOWN_SESSION = 6;

    private static final Logger log = LoggerFactory.getLogger(RoutedConnections.class);

    /** Names a connection: its opener and the id the opener chose. */
    record Key(NodeId opener, long id) {}

    /** Refusals of OPENs a peer may send at will: a flood of them must not flood the log. */
    private final PeerWarnings refusals = new PeerWarnings(log);

    private final RelayLink link;
    private final InboundConnections ports;
    private final ModuleEvents events;
    private final ReceiveBudget budget;
    private final long probeNanos;
    /** Connection ids are random, so that one connection's id tells nothing of the next. */
    private final SecureRandom ids = new SecureRandom();

    private final Map<Key, RoutedConnection> connections = new ConcurrentHashMap<>();
    private final Map<Key, Opening> opening = new ConcurrentHashMap<>();
    /** Accepted connections whose OPEN asked to be held: out of the backlog until the opener's CONFIRM. */
    private final Map<Key, Held> held = new ConcurrentHashMap<>();

    private final long holdNanos;
    /** The node's key agreements, which answer offers to seal (null: none, such offers are refused). */
    private final PeerSessions sessions;
    /** Whether this node seals what it opens and refuses OPENs in clear (traverse.encrypt=relayed). */
    private final boolean seal;

    private final ScheduledFuture<?> prober;
    private final long tickNanos;
    /** When the prober last ran (prober thread only), to tell a late tick: this node's own stall. */
    private long lastProbeNanos;
    /** Per peer node with open connections: its PING in flight and measured round trip (prober and receiver). */
    private final Map<NodeId, PeerLiveness> peers = new ConcurrentHashMap<>();
    /** The module an accepted connection is reported as made by (longpoll while the hub link is a long-poll session). */
    private volatile java.util.function.Supplier<String> acceptedBy = () -> RoutedModuleProvider.NAME;

    /**
     * An OPEN waiting for its answer; with {@code offer} (the key agreement's, replaced once by a
     * full one when the acceptor no longer keeps the secret it resumed) the connection is sealed.
     */
    record Opening(
            RoutedConnection connection,
            CompletableFuture<RoutedConnection> answer,
            java.util.concurrent.atomic.AtomicReference<PeerSessions.Offer> offer,
            int virtualPort,
            long initialCredit,
            boolean hold) {}

    /** An accepted connection held for its opener's CONFIRM, with its backlog slot, until {@code untilNanos}. */
    private record Held(
            RoutedConnection connection, InboundConnections.PortSlot slot, RoutedSocket socket, long untilNanos) {}

    /** A table whose connections each get their whole window (no budget across them), holding for CONFIRM at most 5 s. */
    RoutedConnections(RelayLink link, InboundConnections ports, ModuleEvents events, int window, long probeMillis) {
        this(
                link,
                ports,
                events,
                ReceiveBudget.unlimited(window),
                probeMillis,
                TimeUnit.SECONDS.toMillis(5),
                null,
                false);
    }

    /**
     * @param budget what all connections together may have on their way here beyond what the
     *        application read (traverse.routed.receive.budget), and one connection's window
     * @param holdMillis how long an accepted connection waits at most for its opener's CONFIRM (the handshake timeout)
     * @param sessions the node's key agreements, with which it answers an OPEN that offers to seal
     *        (null: it refuses such OPENs)
     * @param seal whether connections this node opens are sealed end to end and OPENs in clear are
     *        refused (traverse.encrypt=relayed)
     */
    RoutedConnections(
            RelayLink link,
            InboundConnections ports,
            ModuleEvents events,
            ReceiveBudget budget,
            long probeMillis,
            long holdMillis,
            PeerSessions sessions,
            boolean seal) {
        if (seal && sessions == null) {
            throw new IllegalArgumentException("sealing relayed connections needs the node's key agreements");
        }
        this.holdNanos = TimeUnit.MILLISECONDS.toNanos(holdMillis);
        this.sessions = sessions;
        this.seal = seal;
        this.link = link;
        this.ports = ports;
        this.events = events;
        this.budget = budget;
        long probe = Math.max(MIN_PROBE_MILLIS, probeMillis);
        this.probeNanos = TimeUnit.MILLISECONDS.toNanos(probe);
        long tick = probe / 4;
        this.tickNanos = TimeUnit.MILLISECONDS.toNanos(tick);
        this.prober = link.loop().scheduleWithFixedDelay(this::probe, tick, tick, TimeUnit.MILLISECONDS);
        link.receiveWith(this);
    }

    NodeId localId() {
        return link.localId();
    }

    ByteBufAllocator allocator() {
        return link.allocator();
    }

    boolean send(Relay frame) {
        return link.send(frame);
    }

    boolean isLinked() {
        return link.isLinked();
    }

    /** Sends an OPEN that is not held ({@link #open(NodeId, int, boolean)}). */
    Opening open(NodeId target, int virtualPort) {
        return open(target, virtualPort, false);
    }

    /**
     * Sends an OPEN; the future completes when the acceptor answers (it fails with the REFUSE or
     * RESET reason). With {@code hold} the acceptor keeps the connection from its application
     * until {@link #confirm}.
     */
    Opening open(NodeId target, int virtualPort, boolean hold) {
        Key key;
        RoutedConnection connection;
        Opening o;
        // Counted in the budget from now on (every way an opening fails leaves it again).
        long initial = budget.join(Long.MAX_VALUE);
        do {
            key = new Key(link.localId(), ids.nextLong());
            connection = new RoutedConnection(this, key, target, true, virtualPort, initial, 0);
            PeerSessions.Offer offer = seal ? sessions.offer(target, sealContext(key, virtualPort)) : null;
            o = new Opening(
                    connection,
                    new CompletableFuture<>(),
                    new java.util.concurrent.atomic.AtomicReference<>(offer),
                    virtualPort,
                    initial,
                    hold);
        } while (connections.containsKey(key) || opening.putIfAbsent(key, o) != null);
        if (!sendOpen(o)) {
            opening.remove(key);
            connection.leaveBudget();
            o.answer.completeExceptionally(new AttemptFailedException(FailureScope.MODULE, "no hub link"));
        }
        return o;
    }

    private boolean sendOpen(Opening o) {
        Key key = o.connection().key();
        PeerSessions.Offer offer = o.offer().get();
        return link.send(Relay.open(
                key.id(),
                key.opener(),
                o.connection().peer(),
                o.virtualPort(),
                o.initialCredit(),
                o.hold(),
                offer == null ? null : offer.bytes()));
    }

    /** What the key agreement of a connection is bound to besides both node ids: its id and virtual port. */
    private static byte[] sealContext(Key key, int virtualPort) {
        return java.nio.ByteBuffer.allocate(7 + 8 + 2)
                .put("routed:".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                .putLong(key.id())
                .putShort((short) virtualPort)
                .array();
    }

    /** Tells the acceptor of a held connection that it won: now it goes to the application. */
    void confirm(RoutedConnection c) throws java.io.IOException {
        if (!link.send(Relay.frame(
                c.key().id(),
                c.key().opener(),
                c.peer(),
                RelayDirection.TOWARD_ACCEPTOR,
                RelayKind.CONFIRM,
                new byte[0]))) {
            throw new java.net.SocketException("the hub link went down before the relayed connection was confirmed");
        }
    }

    /** Gives up an OPEN (cancelled or out of time): the acceptor, if it accepted meanwhile, gets a RESET. */
    void abandon(Opening o, String reason) {
        RoutedConnection c = o.connection();
        opening.remove(c.key());
        if (o.answer().isDone() && !o.answer().isCompletedExceptionally()) {
            c.reset(reason, true);
        } else {
            o.answer().cancel(false);
            c.leaveBudget();
            link.send(Relay.reset(c.key().id(), c.key().opener(), c.peer(), RelayDirection.TOWARD_ACCEPTOR, reason));
        }
    }

    void remove(RoutedConnection connection) {
        if (connections.remove(connection.key(), connection)) {
            connection.leaveBudget();
        }
    }

    ReceiveBudget budget() {
        return budget;
    }

    int size() {
        return connections.size() + opening.size();
    }

    // ---- frames from the hub (link event loop) ---------------------------------------------

    @Override
    public void frame(Relay frame) {
        try {
            dispatch(frame);
        } finally {
            frame.release();
        }
    }

    private void dispatch(Relay frame) {
        Key key = new Key(frame.opener(), frame.connectionId());
        switch (frame.kind()) {
            case OPEN -> accept(key, frame);
            case ACCEPT, REFUSE -> answered(key, frame);
            default -> {
                RoutedConnection c = connections.get(key);
                if (c != null && !c.carries(frame)) {
                    // Another node's frame naming this connection: the hub vouches only for its sender.
                    c = null;
                }
                if (c == null) {
                    Opening o = opening.get(key);
                    if (o != null
                            && frame.kind() == RelayKind.RESET
                            && o.connection().carries(frame)) {
                        // A hub could not deliver the OPEN, or the acceptor gave up on it.
                        opening.remove(key);
                        o.connection().leaveBudget();
                        o.answer()
                                .completeExceptionally(new AttemptFailedException(
                                        FailureScope.MODULE,
                                        "relayed connection to node " + frame.acceptor() + " failed: "
                                                + frame.reason()));
                        return;
                    }
                    unknown(frame);
                    return;
                }
                c.heard();
                switch (frame.kind()) {
                    case DATA ->
                        c.onData(frame.streamOffset(), frame.dataBytes().retain());
                    case SEALED ->
                        c.onSealed(frame.streamOffset(), frame.dataBytes().retain());
                    case CREDIT -> c.onCredit(frame.credit());
                    case PONG -> {
                        c.onCredit(frame.credit());
                        PeerLiveness peer = peers.get(c.peer());
                        if (peer != null) {
                            peer.ponged(c, System.nanoTime());
                        }
                    }
                    case FIN -> c.onFin(frame.streamOffset());
                    case RESET -> reset(c, frame);
                    case PING -> c.pong(frame);
                    case CONFIRM -> confirmed(key);
                    default -> unknown(frame);
                }
            }
        }
    }

    private void accept(Key key, Relay open) {
        if (connections.containsKey(key)) {
            return;
        }
        InboundConnections.PortSlot slot;
        try {
            ports.checkListening(open.virtualPort());
        } catch (AttemptFailedException e) {
            link.send(open.refuse(IdentityHandshake.Answer.PORT_NOT_FOUND.code, e.getMessage()));
            return;
        }
        try {
            slot = ports.reserve(open.virtualPort());
        } catch (AttemptFailedException e) {
            link.send(open.refuse(IdentityHandshake.Answer.OVERLOAD.code, e.getMessage()));
            return;
        }
        byte[] offer = open.sealOffer();
        PeerSessions.Answer sealed = null;
        if (offer == null && seal) {
            slot.release();
            refusals.warn(
                    "Refused a relayed connection in clear from node {}: this node accepts them only encrypted end to end"
                            + " (traverse.encrypt=relayed)",
                    open.opener());
            link.send(open.refuse(
                    IdentityHandshake.Answer.REFUSED.code,
                    "node " + localId()
                            + " accepts relayed connections only encrypted end to end (traverse.encrypt=relayed);"
                            + " node " + open.opener() + " offered none"));
            return;
        }
        if (offer != null && sessions == null) {
            slot.release();
            link.send(open.refuse(
                    IdentityHandshake.Answer.REFUSED.code,
                    "node " + localId() + " has no key to agree on end-to-end encryption with"));
            return;
        }
        if (offer != null) {
            try {
                sealed = sessions.answer(open.opener(), sealContext(key, open.virtualPort()), offer);
            } catch (PeerSessions.SealFailure e) {
                slot.release();
                if (e.unknownSession()) {
                    log.debug(
                            "Node {} resumed a key agreement this node does not keep: asking for a full one",
                            open.opener());
                    link.send(open.refuse(UNKNOWN_SESSION, e.getMessage()));
                } else {
                    refusals.warn("Refused a relayed connection from node {}: {}", open.opener(), e.getMessage());
                    link.send(open.refuse(IdentityHandshake.Answer.REFUSED.code, e.getMessage()));
                }
                return;
            }
        }
        // Until the application reads, the opener may send only a little: a backlog of connections
        // nobody accepted yet must not hold a window each.
        long initial = budget.join(BACKLOG_CREDIT);
        RoutedConnection c =
                new RoutedConnection(this, key, open.acceptor(), false, open.virtualPort(), initial, open.credit());
        if (sealed != null) {
            c.sealWith(sealed.seal());
        }
        c.pathFrom(open);
        RoutedSocket socket = new RoutedSocket(c, localId(), open.opener());
        // The ACCEPT goes out before the table lists the connection: once listed, the prober may
        // PING on it, and a PING ahead of the ACCEPT reaches an opener that does not know the
        // connection yet, which answers RESET (seen twice in 10,000 set-ups under load). The
        // opener's frames come on this thread, after this method, so none finds it missing.
        link.send(open.accept(initial, sealed == null ? null : sealed.bytes()));
        connections.put(key, c);
        if (open.holdUntilConfirmed()) {
            // Another attempt of the opener's may win: the application sees this one only after CONFIRM.
            held.put(key, new Held(c, slot, socket, System.nanoTime() + holdNanos));
            return;
        }
        slot.deliver(socket, acceptedBy.get());
    }

    /** The opener took the held connection: hand it to the application. */
    private void confirmed(Key key) {
        Held h = held.remove(key);
        if (h != null) {
            h.slot().deliver(h.socket(), acceptedBy.get());
        }
    }

    /** A held connection that ends (reset, unconfirmed in time, link lost) gives its slot back, unseen. */
    private void releaseHeld(Key key) {
        Held h = held.remove(key);
        if (h != null) {
            h.slot().release();
        }
    }

    private void answered(Key key, Relay answer) {
        Opening o = opening.get(key);
        if (o != null && o.connection().carries(answer)) {
            opening.remove(key, o);
        } else {
            o = null;
        }
        if (o == null) {
            if (answer.kind() == RelayKind.ACCEPT) {
                link.send(answer.resetToSender("node " + localId() + " gave up on this connection"));
            }
            return;
        }
        if (answer.kind() == RelayKind.REFUSE) {
            PeerSessions.Offer offer = o.offer().get();
            if (answer.answerCode() == UNKNOWN_SESSION && offer != null && offer.resumed()) {
                // The acceptor lost the secret (it restarted with its key): once more, with a full agreement.
                sessions.forget(answer.acceptor());
                PeerSessions.Offer full = sessions.offer(answer.acceptor(), sealContext(key, o.virtualPort()));
                if (o.offer().compareAndSet(offer, full) && opening.putIfAbsent(key, o) == null && sendOpen(o)) {
                    return;
                }
                opening.remove(key, o);
            }
            o.connection().leaveBudget();
            o.answer().completeExceptionally(refusal(answer));
            return;
        }
        RoutedConnection c = o.connection();
        PeerSessions.Offer offer = o.offer().get();
        if (offer != null) {
            try {
                c.sealWith(offer.complete(answer.sealAnswer()));
            } catch (PeerSessions.SealFailure e) {
                log.warn(
                        "A relayed connection to node {} failed its key agreement: {}",
                        answer.acceptor(),
                        e.getMessage());
                link.send(answer.resetToSender("node " + localId() + " refused the key agreement: " + e.getMessage()));
                o.connection().leaveBudget();
                o.answer()
                        .completeExceptionally(new AttemptFailedException(
                                FailureScope.PATH,
                                "relayed connection to node " + answer.acceptor()
                                        + " failed its end-to-end key agreement: " + e.getMessage()));
                return;
            }
        }
        c.pathFrom(answer);
        c.onCredit(answer.credit());
        c.heard();
        connections.put(key, c);
        if (!o.answer().complete(c)) {
            // The opener gave up meanwhile.
            c.reset("node " + localId() + " gave up on this connection", true);
        }
    }

    private static AttemptFailedException refusal(Relay refuse) {
        int code = refuse.answerCode();
        String reason = refuse.reason();
        if (code == IdentityHandshake.Answer.PORT_NOT_FOUND.code) {
            return new AttemptFailedException(
                    FailureScope.TARGET,
                    "Connection refused: node " + refuse.acceptor() + " has no virtual port (" + reason + ")");
        }
        if (code == IdentityHandshake.Answer.OVERLOAD.code) {
            return new AttemptFailedException(
                    FailureScope.TARGET,
                    "Connection refused: node " + refuse.acceptor() + " is overloaded (" + reason + ")");
        }
        return new AttemptFailedException(FailureScope.PATH, "node " + refuse.acceptor() + " refused: " + reason);
    }

    /**
     * A RESET for an open connection. One that crossed fewer hubs than the connection's frames do
     * was made by a hub on the way that could not forward (the peer's path is broken, not the peer's
     * choice): the listeners hear that the peer is unreachable. A hub next to the peer makes RESETs
     * that look like the peer's own; those are not reported.
     */
    private void reset(RoutedConnection c, Relay frame) {
        boolean wasOpen = !c.isReset();
        c.onReset(frame.reason());
        releaseHeld(c.key()); // the opener closed it unconfirmed: another attempt won
        if (wasOpen && RoutedConnection.hubsCrossed(frame) < c.hubs()) {
            events.peerUnreachable(RoutedModuleProvider.NAME, c.peer(), frame.reason());
        }
    }

    /**
     * A frame for no connection here: DATA, FIN and PING get a RESET; CREDIT and PONG are dropped
     * (an end that finished and closed is gone while the other may still grant it credit).
     */
    private void unknown(Relay frame) {
        if (frame.kind() == RelayKind.DATA
                || frame.kind() == RelayKind.SEALED
                || frame.kind() == RelayKind.FIN
                || frame.kind() == RelayKind.PING) {
            link.send(frame.resetToSender("node " + localId() + " has no such connection"));
        }
    }

    @Override
    public void linkLost(String reason) {
        for (RoutedConnection c : connections.values()) {
            c.onReset(reason);
        }
        for (Key key : List.copyOf(held.keySet())) {
            releaseHeld(key);
        }
        for (Opening o : opening.values()) {
            o.connection().leaveBudget();
            o.answer().completeExceptionally(new AttemptFailedException(FailureScope.MODULE, reason));
        }
        opening.clear();
    }

    private void probe() {
        long now = System.nanoTime();
        // A tick that comes late means this node stood still (a JVM-wide pause: with ten thousand
        // threads a safepoint took 12 s to reach); the frames its peers sent meanwhile wait unread.
        // That time is not the peers' silence.
        long late = lastProbeNanos == 0 ? 0 : now - lastProbeNanos - tickNanos;
        lastProbeNanos = now;
        if (late > tickNanos) {
            log.debug(
                    "The prober ran {} ms late: not counted as silence of any peer",
                    TimeUnit.NANOSECONDS.toMillis(late));
            for (RoutedConnection c : connections.values()) {
                c.excuse(late);
            }
        }
        for (Held h : List.copyOf(held.values())) {
            if (h.connection().isReset() || now - h.untilNanos() >= 0) {
                releaseHeld(h.connection().key());
                h.connection().reset("node " + localId() + " got no confirmation of a held connection", true);
            }
        }
        // Liveness per peer node, not per connection: every connection to a node takes the same
        // hubs (they route by destination), so a frame on any of them shows the path and the node
        // alive, and one PING per silent peer stands for all of its connections. Ten thousand idle
        // connections to a few peers cost a few PINGs per interval, not ten thousand.
        Map<NodeId, List<RoutedConnection>> byPeer = new java.util.HashMap<>();
        for (RoutedConnection c : connections.values()) {
            if (!c.isFinishedBothWays()) {
                // A connection finished both ways is kept until the application closes it, but nothing
                // more can travel: a PING would only meet an end that forgot it, and come back a RESET.
                byPeer.computeIfAbsent(c.peer(), p -> new java.util.ArrayList<>())
                        .add(c);
            }
        }
        byPeer.forEach((peer, list) -> probePeer(peer, list, now));
        peers.keySet().retainAll(byPeer.keySet());
    }

    private void probePeer(NodeId peer, List<RoutedConnection> list, long now) {
        RoutedConnection latest = list.get(0);
        for (RoutedConnection c : list) {
            if (c.lastHeardNanos() - latest.lastHeardNanos() > 0) {
                latest = c;
            }
        }
        PeerLiveness liveness = peers.computeIfAbsent(peer, p -> new PeerLiveness(now));
        long silent = now - latest.lastHeardNanos();
        long deadAfter = liveness.deadAfterNanos(probeNanos, DEAD_AFTER_PROBES);
        if (silent > deadAfter) {
            String reason = "nothing heard from node " + peer + " for " + TimeUnit.NANOSECONDS.toMillis(silent)
                    + " ms: a hub or link on the way is gone";
            log.debug(
                    "Resetting {} connection(s) to node {}: nothing heard for {} ms (limit {} ms, smoothed round trip {} ms)",
                    list.size(),
                    peer,
                    TimeUnit.NANOSECONDS.toMillis(silent),
                    TimeUnit.NANOSECONDS.toMillis(deadAfter),
                    TimeUnit.NANOSECONDS.toMillis(liveness.smoothedRoundTripNanos()));
            boolean anyOpen = false;
            for (RoutedConnection c : list) {
                anyOpen |= !c.isReset();
                c.reset(reason, true);
            }
            peers.remove(peer);
            if (anyOpen) {
                events.peerUnreachable(RoutedModuleProvider.NAME, peer, reason);
            }
        } else if (liveness.shouldPing(silent, probeNanos, now, BUSY_PEER_PING_PROBES)) {
            liveness.pinged(latest, now);
            latest.ping();
        }
    }

    /** Resets every connection (the module is closing). */
    void acceptedBy(java.util.function.Supplier<String> module) {
        acceptedBy = module;
    }

    void close() {
        prober.cancel(false);
        link.receiveWith(null);
        linkLost("node " + localId() + " is closing");
    }
}
