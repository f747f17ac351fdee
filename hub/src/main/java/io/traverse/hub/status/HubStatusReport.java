package io.traverse.hub.status;

import java.util.List;

/**
 * What a hub knows, as its HTTP endpoint serves it at {@code /status} (JSON) and
 * {@code traverse status} prints it: this hub, every hub it knows through gossip with the route to
 * it, its own links, the nodes and names of the whole hub network.
 *
 * <p>Ids are the text form of {@code NodeId}; times are milliseconds since the epoch.
 */
public record HubStatusReport(
        int formatVersion,
        long generatedAtMillis,
        HubEntry self,
        List<HubEntry> hubs,
        List<LinkEntry> links,
        List<NodeEntry> nodes,
        List<NameEntry> names) {

    /** The version of this document's layout; grows when fields change meaning or go away. */
    public static final int FORMAT_VERSION = 1;

    public HubStatusReport {
        hubs = List.copyOf(hubs);
        links = List.copyOf(links);
        nodes = List.copyOf(nodes);
        names = List.copyOf(names);
    }

    /**
     * A hub as this hub sees it. {@code hops} is 0 for this hub itself, -1 for a hub that is
     * known from gossip but not reachable now; {@code nextHopId} is null for both.
     */
    public record HubEntry(String id, String name, long state, List<String> addresses, int hops, String nextHopId) {
        public HubEntry {
            addresses = List.copyOf(addresses);
        }

        public boolean reachable() {
            return hops >= 0;
        }
    }

    /**
     * One live link of this hub. {@code kind} is {@code hub} or {@code node}; {@code direction}
     * is {@code out} when this hub dialled, {@code in} when it accepted; {@code rttMillis} is the
     * last keepalive round trip, null before the first.
     */
    public record LinkEntry(String kind, String peerId, String peerName, String direction, String remoteAddress,
            Double rttMillis, long upSinceMillis) {
    }

    /**
     * A node of the hub network and the hub it is connected to. {@code observedAddress} (what the
     * hub saw the node's link come from) is only known to the node's own hub; null elsewhere.
     */
    public record NodeEntry(String id, String hubId, String identity, String observedAddress) {
    }

    /** A registered name: {@code name} resolves to virtual port {@code port} of node {@code nodeId}. */
    public record NameEntry(String name, String nodeId, int port, String hubId) {
    }
}
