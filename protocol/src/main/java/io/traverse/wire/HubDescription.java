package io.traverse.wire;

import io.traverse.identity.NodeId;
import java.util.List;

/**
 * What a hub tells the hub network about itself (paper §3.3.1): id, state number (newer wins),
 * name, the addresses it can be dialled at, its neighbours (hubs with a live authenticated link),
 * its nodes and their names, and the round-trip time it last measured on each of its hub links
 * (for operators: the dashboard draws it). Routing uses only the links both ends list.
 *
 * @param neighbourRttMicros one per neighbour, in the same order: the link's last measured
 *        round-trip time in microseconds, {@link #RTT_UNKNOWN} before its first measurement; empty
 *        from a hub that does not send them
 */
public record HubDescription(
        NodeId hubId,
        long stateNumber,
        String name,
        List<String> linkAddresses,
        List<NodeId> neighbours,
        List<NodeEntry> nodes,
        List<NameEntry> names,
        List<Long> neighbourRttMicros) {
    /** A link whose round-trip time has not been measured yet. */
    public static final long RTT_UNKNOWN = 0xffff_ffffL;

    public HubDescription {
        FieldChecks.present("hub id", hubId);
        FieldChecks.hubName(name);
        linkAddresses = FieldChecks.linkAddresses(linkAddresses);
        neighbours = FieldChecks.list("neighbours", neighbours, LinkLimits.MAX_LIST);
        nodes = FieldChecks.list("nodes", nodes, LinkLimits.MAX_LIST);
        names = FieldChecks.list("names", names, LinkLimits.MAX_LIST);
        neighbourRttMicros = FieldChecks.list("neighbour round-trip times", neighbourRttMicros, LinkLimits.MAX_LIST);
        if (!neighbourRttMicros.isEmpty() && neighbourRttMicros.size() != neighbours.size()) {
            throw new IllegalArgumentException(
                    neighbourRttMicros.size() + " round-trip times for " + neighbours.size() + " neighbours");
        }
        for (long rtt : neighbourRttMicros) {
            if (rtt < 0 || rtt > RTT_UNKNOWN) {
                throw new IllegalArgumentException(
                        "round-trip time " + rtt + " outside 0.." + RTT_UNKNOWN + " microseconds");
            }
        }
    }

    /** A description without round-trip times. */
    public HubDescription(
            NodeId hubId,
            long stateNumber,
            String name,
            List<String> linkAddresses,
            List<NodeId> neighbours,
            List<NodeEntry> nodes,
            List<NameEntry> names) {
        this(hubId, stateNumber, name, linkAddresses, neighbours, nodes, names, List.of());
    }

    /**
     * The round-trip time to each neighbour in microseconds, in the order of {@link #neighbours()}:
     * -1 where not measured or not sent. In one pass (a description may list 65,535 neighbours:
     * {@link #rttMicrosTo} for each of them would take seconds).
     */
    public List<Long> rttMicrosByNeighbour() {
        List<Long> rtts = new java.util.ArrayList<>(neighbours.size());
        for (int i = 0; i < neighbours.size(); i++) {
            long rtt = neighbourRttMicros.isEmpty() ? RTT_UNKNOWN : neighbourRttMicros.get(i);
            rtts.add(rtt == RTT_UNKNOWN ? -1 : rtt);
        }
        return rtts;
    }

    /** The round-trip time of the link to {@code neighbour} in microseconds, or -1 if not listed or not measured. */
    public long rttMicrosTo(NodeId neighbour) {
        int i = neighbours.indexOf(neighbour);
        if (i < 0 || neighbourRttMicros.isEmpty()) {
            return -1;
        }
        long rtt = neighbourRttMicros.get(i);
        return rtt == RTT_UNKNOWN ? -1 : rtt;
    }

    /** A node connected to the hub, with its identity text. */
    public record NodeEntry(NodeId nodeId, String identityText) {
        public NodeEntry {
            FieldChecks.present("node id", nodeId);
            FieldChecks.nonEmptyText("identity text", identityText, LinkLimits.MAX_IDENTITY_TEXT);
        }
    }

    /**
     * A name registered at the hub by one of its nodes, for one of that node's virtual ports; or,
     * with virtual port {@link #RESERVED}, a name the hub keeps for a node whose link to it went,
     * which only that node may take back.
     */
    public record NameEntry(String name, NodeId nodeId, int virtualPort) {
        /** The virtual port of a reserved name. */
        public static final int RESERVED = 0;

        public NameEntry {
            FieldChecks.name(name);
            FieldChecks.present("node id", nodeId);
            FieldChecks.range("virtual port", virtualPort, RESERVED, 65535);
        }

        /** Kept for a node that left the hub, not bound to a port. */
        public boolean reserved() {
            return virtualPort == RESERVED;
        }
    }
}
