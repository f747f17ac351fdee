package io.traverse.hub.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.traverse.hub.HubStatus;
import io.traverse.identity.NodeId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the dashboard page shows, made from a hub's status and traffic: the hub graph (hubs, and
 * the links both ends list, with round-trip times), the nodes linked here, the names of the
 * network, connection set-ups by module and relay throughput. Sent to the page as JSON; the page
 * only lays it out.
 */
record DashboardView(
        String hubId,
        String hubName,
        long timeMillis,
        List<HubVertex> hubs,
        List<LinkEdge> links,
        List<NodeRow> nodes,
        int nodeCount,
        List<NameRow> names,
        int nameCount,
        Map<String, Long> connectionSetUps,
        int longPollSessions,
        RelayThroughput.Rate relay,
        long relayBytesDelivered,
        long relayBytesForwarded) {
    /**
     * At most this many nodes and names go in a view (the first by id and by name; the counts say
     * how many there are): a view goes to every open page twice a second, and a network's names
     * have no bound a page could redraw that often. {@code /status} lists them all.
     */
    static final int MAX_ROWS = 500;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** A hub of the graph: this one, or one known by gossip. */
    record HubVertex(String id, String name, boolean self, boolean reachable, int hops) {}

    /**
     * A live link between two hubs.
     *
     * @param rttMicros its round-trip time, -1 while unknown
     * @param measuredBy the name of the hub that measured it: this hub for its own links (measured
     *        now), else a far end (as it last gossiped, at most one gossip refresh old)
     */
    record LinkEdge(String a, String aName, String b, String bName, long rttMicros, String measuredBy) {}

    /** A node linked to this hub. */
    record NodeRow(String id, String address, long rttMicros, List<String> names) {}

    /** A name of the network and who holds it. */
    record NameRow(String name, int port, String nodeId, String hubName) {}

    static DashboardView of(HubStatus status, HubTraffic traffic, RelayThroughput.Rate rate, long nowMillis) {
        Map<NodeId, String> hubNames = new HashMap<>();
        hubNames.put(status.hubId(), status.name());
        status.knownHubs().forEach((id, hub) -> hubNames.put(id, hub.name()));

        List<HubVertex> hubs = new ArrayList<>();
        hubs.add(new HubVertex(status.hubId().toString(), status.name(), true, true, 0));
        status.knownHubs().forEach((id, hub) -> {
            HubStatus.RouteStatus route = status.routes().get(id);
            hubs.add(new HubVertex(
                    id.toString(), hub.name(), false, hub.reachable(), route == null ? -1 : route.hops()));
        });
        hubs.sort(Comparator.comparing(HubVertex::name).thenComparing(HubVertex::id));

        List<NodeRow> nodes = new ArrayList<>();
        for (HubStatus.NodeStatus node : status.nodes()) {
            nodes.add(new NodeRow(
                    node.nodeId().toString(),
                    node.observedAddress(),
                    node.rttMicros(),
                    node.names().keySet().stream().sorted().toList()));
        }
        nodes.sort(Comparator.comparing(NodeRow::id));
        int nodeCount = nodes.size();

        List<NameRow> names = new ArrayList<>();
        status.names()
                .forEach((name, holder) -> names.add(new NameRow(
                        name,
                        holder.virtualPort(),
                        holder.nodeId().toString(),
                        hubNames.getOrDefault(holder.hubId(), holder.hubId().toString()))));
        names.sort(Comparator.comparing(NameRow::name));
        int nameCount = names.size();

        return new DashboardView(
                status.hubId().toString(),
                status.name(),
                nowMillis,
                hubs,
                links(status, hubNames),
                first(nodes),
                nodeCount,
                first(names),
                nameCount,
                traffic.connectionSetUps(),
                traffic.longPollSessions(),
                rate,
                traffic.relayBytesDelivered(),
                traffic.relayBytesForwarded());
    }

    private static <T> List<T> first(List<T> rows) {
        return rows.size() <= MAX_ROWS ? rows : List.copyOf(rows.subList(0, MAX_ROWS));
    }

    /** This hub's own links as measured now, and every other pair of hubs that list each other (as routing counts them). */
    private static List<LinkEdge> links(HubStatus status, Map<NodeId, String> hubNames) {
        List<LinkEdge> links = new ArrayList<>();
        NodeId self = status.hubId();
        for (HubStatus.HubLinkStatus link : status.hubLinks()) {
            links.add(edge(self, link.peerId(), hubNames, link.rttMicros(), status.name()));
        }
        // Each known hub's neighbours with the time it measured to each: looked up, not searched (a hub may list
        // 65,535).
        Map<NodeId, Map<NodeId, Long>> listed = new HashMap<>();
        status.knownHubs().forEach((id, hub) -> listed.put(id, rttByNeighbour(hub)));
        for (Map.Entry<NodeId, HubStatus.KnownHubStatus> entry : new TreeMap<>(status.knownHubs()).entrySet()) {
            NodeId a = entry.getKey();
            HubStatus.KnownHubStatus hubA = entry.getValue();
            for (NodeId b : hubA.neighbours()) {
                // Each pair once (from its smaller id); this hub's own links are above, as measured now.
                Map<NodeId, Long> ofB = listed.get(b);
                if (a.compareTo(b) >= 0 || b.equals(self) || ofB == null || !ofB.containsKey(a)) {
                    continue;
                }
                long byA = listed.get(a).get(b);
                long byB = ofB.get(a);
                links.add(
                        byA >= 0 || byB < 0
                                ? edge(a, b, hubNames, byA, hubA.name())
                                : edge(
                                        a,
                                        b,
                                        hubNames,
                                        byB,
                                        status.knownHubs().get(b).name()));
            }
        }
        return links;
    }

    /** A hub's neighbours with the time it measured to each, -1 where none (none at all from an older hub). */
    private static Map<NodeId, Long> rttByNeighbour(HubStatus.KnownHubStatus hub) {
        Map<NodeId, Long> rtts = new HashMap<>();
        List<Long> measured = hub.neighbourRttMicros();
        for (int i = 0; i < hub.neighbours().size(); i++) {
            rtts.putIfAbsent(hub.neighbours().get(i), measured == null || i >= measured.size() ? -1L : measured.get(i));
        }
        return rtts;
    }

    private static LinkEdge edge(NodeId a, NodeId b, Map<NodeId, String> hubNames, long rttMicros, String measuredBy) {
        return new LinkEdge(
                a.toString(),
                hubNames.getOrDefault(a, a.toString()),
                b.toString(),
                hubNames.getOrDefault(b, b.toString()),
                rttMicros,
                measuredBy);
    }

    /** As one line of JSON (what a Server-Sent Events {@code data:} line can carry). */
    String toJson() {
        try {
            return MAPPER.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("dashboard view cannot be written as JSON", e);
        }
    }
}
