package io.traverse.hub.relay;

import io.traverse.hub.AdmissionLimit;
import io.traverse.identity.NodeId;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import io.traverse.wire.RelayKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The relayed connections that have an end at a node of this hub, counted so that an OPEN beyond
 * a limit is refused before it costs anything, and so that what a node held is given back at once
 * when its link goes. Transit connections (neither end here) are not kept: their ends' hubs count them.
 *
 * <p>A connection is known from its admitted OPEN until its REFUSE, a RESET (from either end or a
 * hub), both FINs, or the link of a node of this hub at either end going ({@link #nodeLeft}). Until
 * its ACCEPT it is a setup waiting for an answer. Per connection this keeps one small entry (the
 * shares of its ends here, its state: answered, which FINs, ended, and for each end here the
 * {@link DeliveryWindow} of what may be on its way to it), keyed by the opener, the
 * acceptor and the connection id: a frame can end only the connection it names in full, so a node
 * cannot end another node's connection that happens to share an id.
 *
 * <p>Thread-safe without locks, so that the I/O threads count the frames they relay at once
 * (OPEN and ACCEPT keep their short path, and set-up latency with it): counts are reserved by
 * compare-and-set before an entry exists, and an entry's state changes by compare-and-set, so
 * exactly one thread ends it and gives its counts back. Node shares are made and dropped on the
 * state loop ({@link #nodeJoined}, {@link #nodeLeft}); a connection added to a share that is being
 * dropped sees the share gone and ends itself, so nothing outlives its node. Limits hold exactly:
 * a count is only ever raised by a reservation that checked it.
 */
public final class RelayedConnections {
    private static final int ANSWERED = 1;
    private static final int FIN_TOWARD_ACCEPTOR = 2;
    private static final int FIN_TOWARD_OPENER = 4;
    private static final int ENDED = 8;

    /** A connection in full: opener, acceptor and the opener's connection id. */
    private record Key(NodeId opener, NodeId acceptor, long id) {
        static Key of(Relay frame) {
            return new Key(frame.opener(), frame.acceptor(), frame.connectionId());
        }
    }

    /**
     * What is known of one connection: the shares of its ends here (null for an end elsewhere), its
     * state bits, and for each direction the window of what may be on its way out of this hub: to
     * the end here, or, for the bytes an end here sends, on the hub link toward the far end.
     */
    private static final class Entry {
        final NodeShare opener;
        final NodeShare acceptor;
        final AtomicInteger state = new AtomicInteger();
        final DeliveryWindow towardOpener;
        final DeliveryWindow towardAcceptor;

        Entry(NodeShare opener, NodeShare acceptor) {
            this.opener = opener;
            this.acceptor = acceptor;
            this.towardOpener = new DeliveryWindow();
            this.towardAcceptor = new DeliveryWindow();
        }

        void endWindows() {
            towardOpener.end();
            towardAcceptor.end();
        }
    }

    /** One linked node's connections here, and how many of them wait for an answer. */
    private static final class NodeShare {
        final NodeId node;
        final Set<Key> connections = ConcurrentHashMap.newKeySet();
        final AtomicInteger held = new AtomicInteger();
        final AtomicInteger setups = new AtomicInteger();
        volatile boolean gone;

        NodeShare(NodeId node) {
            this.node = node;
        }
    }

    /** An OPEN refused: which limit, and the reason for its RESET. */
    public record Refusal(AdmissionLimit limit, String reason) {}

    private final String hubName;
    private final int maxPerNode;
    private final int maxSetupsPerNode;
    private final int maxTotal;
    private final Map<Key, Entry> entries = new ConcurrentHashMap<>();
    private final Map<NodeId, NodeShare> shares = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();
    private final AtomicInteger setups = new AtomicInteger();

    public RelayedConnections(String hubName, int maxPerNode, int maxSetupsPerNode, int maxTotal) {
        this.hubName = hubName;
        this.maxPerNode = maxPerNode;
        this.maxSetupsPerNode = maxSetupsPerNode;
        this.maxTotal = maxTotal;
    }

    /** True for the kinds of frame that change what is kept here (OPEN, ACCEPT, REFUSE, FIN, RESET). */
    public static boolean changes(RelayKind kind) {
        return switch (kind) {
            case OPEN, ACCEPT, REFUSE, FIN, RESET -> true;
            default -> false;
        };
    }

    /** A node linked here: its connections are counted from now on. State loop. */
    public void nodeJoined(NodeId node) {
        shares.put(node, new NodeShare(node));
    }

    /**
     * Admits an OPEN whose opener, acceptor or both are nodes of this hub, keeping it as a setup,
     * or says which limit refuses it (nothing is kept then). An OPEN for a connection already
     * kept is admitted without counting it again; an end whose node is not (or no longer) linked
     * here is not counted. Any thread.
     */
    public Refusal admit(Relay open, boolean openerHere, boolean acceptorHere) {
        NodeShare opener = openerHere ? shares.get(open.opener()) : null;
        NodeShare acceptor = acceptorHere ? shares.get(open.acceptor()) : null;
        if (acceptor == opener) {
            acceptor = null; // a node connecting to itself counts once
        }
        Key key = Key.of(open);
        if ((opener == null && acceptor == null) || entries.containsKey(key)) {
            return null;
        }
        if (!reserve(total, maxTotal)) {
            return new Refusal(
                    AdmissionLimit.RELAYED,
                    AdmissionLimit.RELAYED.reason(total.get() + " relayed connections are held", hubName));
        }
        Refusal refusal = opener == null ? null : reserve(opener);
        if (refusal == null && acceptor != null) {
            refusal = reserve(acceptor);
            if (refusal != null && opener != null) {
                unreserve(opener, true);
            }
        }
        if (refusal != null) {
            total.decrementAndGet();
            return refusal;
        }
        setups.incrementAndGet();
        Entry entry = new Entry(opener, acceptor);
        if (entries.putIfAbsent(key, entry) != null) {
            // The same OPEN counted on another thread meanwhile: give this one's counts back.
            giveBack(entry, false);
            return null;
        }
        for (NodeShare share : new NodeShare[] {opener, acceptor}) {
            if (share != null) {
                share.connections.add(key);
            }
        }
        if ((opener != null && opener.gone) || (acceptor != null && acceptor.gone)) {
            end(key, entry); // its node left while this was added: nodeLeft may not have seen it
        } else if ((entry.state.get() & ENDED) != 0) {
            forget(key, entry); // ended by another thread before the shares listed it
        }
        return null;
    }

    private Refusal reserve(NodeShare share) {
        if (!reserve(share.held, maxPerNode)) {
            return new Refusal(
                    AdmissionLimit.RELAYED_PER_NODE,
                    AdmissionLimit.RELAYED_PER_NODE.reason(
                            "node " + share.node + " has " + share.held.get() + " relayed connections", hubName));
        }
        if (!reserve(share.setups, maxSetupsPerNode)) {
            share.held.decrementAndGet();
            return new Refusal(
                    AdmissionLimit.SETUPS_PER_NODE,
                    AdmissionLimit.SETUPS_PER_NODE.reason(
                            "node " + share.node + " has " + share.setups.get()
                                    + " relayed connection setups waiting for an answer",
                            hubName));
        }
        return null;
    }

    private static boolean reserve(AtomicInteger count, int max) {
        while (true) {
            int now = count.get();
            if (now >= max) {
                return false;
            }
            if (count.compareAndSet(now, now + 1)) {
                return true;
            }
        }
    }

    private static void unreserve(NodeShare share, boolean setup) {
        share.held.decrementAndGet();
        if (setup) {
            share.setups.decrementAndGet();
        }
    }

    /** A frame of a connection passing this hub (or made here): ACCEPT, REFUSE, FIN and RESET change what is kept. Any thread. */
    public void observe(Relay frame) {
        RelayKind kind = frame.kind();
        if (kind == RelayKind.OPEN || !changes(kind)) {
            return;
        }
        Key key = Key.of(frame);
        Entry entry = entries.get(key);
        if (entry == null) {
            return;
        }
        switch (kind) {
            case ACCEPT -> answered(entry);
            case FIN -> {
                int fin = frame.direction() == RelayDirection.TOWARD_ACCEPTOR ? FIN_TOWARD_ACCEPTOR : FIN_TOWARD_OPENER;
                int state = entry.state.getAndUpdate(s -> s | fin) | fin;
                if ((state & (FIN_TOWARD_ACCEPTOR | FIN_TOWARD_OPENER)) == (FIN_TOWARD_ACCEPTOR | FIN_TOWARD_OPENER)) {
                    end(key, entry);
                }
            }
            default -> end(key, entry); // REFUSE, RESET
        }
    }

    private void answered(Entry entry) {
        while (true) {
            int state = entry.state.get();
            if ((state & (ANSWERED | ENDED)) != 0) {
                return;
            }
            if (entry.state.compareAndSet(state, state | ANSWERED)) {
                setups.decrementAndGet();
                for (NodeShare share : new NodeShare[] {entry.opener, entry.acceptor}) {
                    if (share != null) {
                        share.setups.decrementAndGet();
                    }
                }
                return;
            }
        }
    }

    /** Ends a connection once, whoever gets here first; true for the caller that ended it. */
    private boolean end(Key key, Entry entry) {
        int before;
        do {
            before = entry.state.get();
            if ((before & ENDED) != 0) {
                return false;
            }
        } while (!entry.state.compareAndSet(before, before | ENDED));
        entry.endWindows();
        forget(key, entry);
        giveBack(entry, (before & ANSWERED) != 0);
        return true;
    }

    private void forget(Key key, Entry entry) {
        entries.remove(key, entry);
        for (NodeShare share : new NodeShare[] {entry.opener, entry.acceptor}) {
            if (share != null) {
                share.connections.remove(key);
            }
        }
    }

    private void giveBack(Entry entry, boolean answered) {
        total.decrementAndGet();
        if (!answered) {
            setups.decrementAndGet();
        }
        for (NodeShare share : new NodeShare[] {entry.opener, entry.acceptor}) {
            if (share != null) {
                unreserve(share, !answered);
            }
        }
    }

    /**
     * A node of this hub lost its link: every connection it had here is ended at once, and for
     * each one whose other end is another node, a RESET toward that end ("node … lost its link to
     * hub …") is returned for the caller to route (the other end learns now, not when its probes
     * go unanswered). State loop.
     */
    public List<Relay> nodeLeft(NodeId node) {
        NodeShare share = shares.remove(node);
        if (share == null) {
            return List.of();
        }
        share.gone = true;
        String reason = "node " + node + " lost its link to hub " + hubName;
        List<Relay> resets = new ArrayList<>();
        for (Key key : share.connections) {
            Entry entry = entries.get(key);
            if (entry != null && end(key, entry) && !key.opener().equals(key.acceptor())) {
                RelayDirection toOther =
                        key.opener().equals(node) ? RelayDirection.TOWARD_ACCEPTOR : RelayDirection.TOWARD_OPENER;
                resets.add(Relay.reset(key.id(), key.opener(), key.acceptor(), toOther, reason));
            }
        }
        return resets;
    }

    /**
     * The window of the direction the frame travels in ({@code ofDestination}: DATA) or grants
     * credit for (the opposite one: OPEN, ACCEPT, CREDIT, PONG), if the connection is kept here;
     * else null. Any thread.
     */
    DeliveryWindow window(Relay frame, boolean ofDestination) {
        Entry entry = entries.get(Key.of(frame));
        if (entry == null || (entry.state.get() & ENDED) != 0) {
            return null;
        }
        boolean opener = (frame.direction() == RelayDirection.TOWARD_OPENER) == ofDestination;
        return opener ? entry.towardOpener : entry.towardAcceptor;
    }

    /** Connections kept (with an end at a node of this hub), answered or not. */
    public int size() {
        return total.get();
    }

    /** Connections kept that wait for their ACCEPT or REFUSE. */
    public int setups() {
        return setups.get();
    }

    /** Connections kept with an end at this node. */
    public int heldBy(NodeId node) {
        NodeShare share = shares.get(node);
        return share == null ? 0 : share.held.get();
    }
}
