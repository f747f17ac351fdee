package io.traverse.hub.relay;

import io.traverse.hub.AdmissionLimit;
import io.traverse.identity.NodeId;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import io.traverse.wire.RelayKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The relayed connections that have an end at a node of this hub, counted so that an OPEN beyond
 * a limit is refused before it costs anything, and so that what a node held is given back at once
 * when its link goes. Transit connections (neither end here) are not kept: their ends' hubs count them.
 *
 * <p>A connection is known from its admitted OPEN until its REFUSE, a RESET (from either end or a
 * hub), both FINs, or the link of a node of this hub at either end going ({@link #nodeLeft}). Until
 * its ACCEPT it is a setup waiting for an answer. Per connection this keeps one small entry (which
 * ends are here, answered or not, which FINs were seen), keyed by the opener, the acceptor and the
 * connection id: a frame can end only the connection it names in full, so a node cannot end another
 * node's connection that happens to share an id.
 *
 * <p>State-loop only: the frames that change it ({@link #changes(RelayKind)}) never take the I/O
 * threads' short cut past the state loop (see {@link RelayRouter#relayAtOnce}).
 */
public final class RelayedConnections {
    private static final byte FIN_TOWARD_ACCEPTOR = 1;
    private static final byte FIN_TOWARD_OPENER = 2;

    /** A connection in full: opener, acceptor and the opener's connection id. */
    private record Key(NodeId opener, NodeId acceptor, long id) {
        static Key of(Relay frame) {
            return new Key(frame.opener(), frame.acceptor(), frame.connectionId());
        }
    }

    /** What is known of one connection. */
    private static final class Entry {
        final boolean openerHere;
        final boolean acceptorHere;
        boolean answered;
        byte fins;

        Entry(boolean openerHere, boolean acceptorHere) {
            this.openerHere = openerHere;
            this.acceptorHere = acceptorHere;
        }
    }

    /** One node's connections here, and how many of them wait for an answer. */
    private static final class NodeShare {
        final Set<Key> connections = new HashSet<>();
        int setups;
    }

    /** An OPEN refused: which limit, and the reason for its RESET. */
    public record Refusal(AdmissionLimit limit, String reason) {
    }

    private final String hubName;
    private final int maxPerNode;
    private final int maxSetupsPerNode;
    private final int maxTotal;
    private final Map<Key, Entry> entries = new HashMap<>();
    private final Map<NodeId, NodeShare> shares = new HashMap<>();
    private int setups;

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

    /**
     * Admits an OPEN whose opener, acceptor or both are nodes of this hub, keeping it as a setup,
     * or says which limit refuses it (nothing is kept then). An OPEN for a connection already
     * kept is admitted without counting it again.
     */
    public Refusal admit(Relay open, boolean openerHere, boolean acceptorHere) {
        Key key = Key.of(open);
        if (entries.containsKey(key)) {
            return null;
        }
        if (entries.size() >= maxTotal) {
            return new Refusal(AdmissionLimit.RELAYED, AdmissionLimit.RELAYED.reason(entries.size() + " relayed connections are held",
                    hubName));
        }
        Refusal refusal = openerHere ? refusalFor(open.opener()) : null;
        if (refusal == null && acceptorHere) {
            refusal = refusalFor(open.acceptor());
        }
        if (refusal != null) {
            return refusal;
        }
        entries.put(key, new Entry(openerHere, acceptorHere));
        setups++;
        if (openerHere) {
            add(open.opener(), key);
        }
        if (acceptorHere) {
            add(open.acceptor(), key);
        }
        return null;
    }

    private Refusal refusalFor(NodeId node) {
        NodeShare share = shares.get(node);
        if (share == null) {
            return null;
        }
        if (share.connections.size() >= maxPerNode) {
            return new Refusal(AdmissionLimit.RELAYED_PER_NODE, AdmissionLimit.RELAYED_PER_NODE.reason("node " + node + " has "
                    + share.connections.size() + " relayed connections", hubName));
        }
        if (share.setups >= maxSetupsPerNode) {
            return new Refusal(AdmissionLimit.SETUPS_PER_NODE, AdmissionLimit.SETUPS_PER_NODE.reason("node " + node + " has "
                    + share.setups + " relayed connection setups waiting for an answer", hubName));
        }
        return null;
    }

    private void add(NodeId node, Key key) {
        NodeShare share = shares.computeIfAbsent(node, n -> new NodeShare());
        if (share.connections.add(key)) {
            share.setups++;
        }
    }

    /** A frame of a connection passing this hub (or made here): ACCEPT, REFUSE, FIN and RESET change what is kept. */
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
            case ACCEPT -> answered(key, entry);
            case FIN -> {
                entry.fins |= frame.direction() == RelayDirection.TOWARD_ACCEPTOR ? FIN_TOWARD_ACCEPTOR : FIN_TOWARD_OPENER;
                if (entry.fins == (FIN_TOWARD_ACCEPTOR | FIN_TOWARD_OPENER)) {
                    remove(key, entry, null);
                }
            }
            default -> remove(key, entry, null); // REFUSE, RESET
        }
    }

    private void answered(Key key, Entry entry) {
        if (entry.answered) {
            return;
        }
        entry.answered = true;
        setups--;
        for (NodeId node : endsHere(key, entry)) {
            shares.get(node).setups--;
        }
    }

    /**
     * A node of this hub lost its link: every connection it had here is forgotten at once, and for
     * each one whose other end is another node, a RESET toward that end ("node … lost its link to
     * hub …") is returned for the caller to route (the other end learns now, not when its probes
     * go unanswered).
     */
    public List<Relay> nodeLeft(NodeId node) {
        NodeShare share = shares.get(node);
        if (share == null) {
            return List.of();
        }
        String reason = "node " + node + " lost its link to hub " + hubName;
        List<Relay> resets = new ArrayList<>();
        for (Key key : List.copyOf(share.connections)) {
            Entry entry = entries.get(key);
            if (entry == null) {
                continue;
            }
            remove(key, entry, node);
            if (!key.opener().equals(key.acceptor())) {
                RelayDirection toOther = key.opener().equals(node) ? RelayDirection.TOWARD_ACCEPTOR : RelayDirection.TOWARD_OPENER;
                resets.add(Relay.reset(key.id(), key.opener(), key.acceptor(), toOther, reason));
            }
        }
        shares.remove(node);
        return resets;
    }

    private void remove(Key key, Entry entry, NodeId leaving) {
        entries.remove(key);
        if (!entry.answered) {
            setups--;
        }
        for (NodeId node : endsHere(key, entry)) {
            NodeShare share = shares.get(node);
            share.connections.remove(key);
            if (!entry.answered) {
                share.setups--;
            }
            if (share.connections.isEmpty() && !node.equals(leaving)) {
                shares.remove(node);
            }
        }
    }

    /** The distinct nodes of this hub at the connection's ends (one when a node connects to itself). */
    private static List<NodeId> endsHere(Key key, Entry entry) {
        if (entry.openerHere && entry.acceptorHere) {
            return key.opener().equals(key.acceptor()) ? List.of(key.opener()) : List.of(key.opener(), key.acceptor());
        }
        return entry.openerHere ? List.of(key.opener()) : entry.acceptorHere ? List.of(key.acceptor()) : List.of();
    }

    /** Connections kept (with an end at a node of this hub), answered or not. */
    public int size() {
        return entries.size();
    }

    /** Connections kept that wait for their ACCEPT or REFUSE. */
    public int setups() {
        return setups;
    }

    /** Connections kept with an end at this node. */
    public int heldBy(NodeId node) {
        NodeShare share = shares.get(node);
        return share == null ? 0 : share.connections.size();
    }
}
