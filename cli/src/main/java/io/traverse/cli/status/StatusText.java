package io.traverse.cli.status;

import io.traverse.cli.TextColumns;
import io.traverse.hub.HubStatus;
import io.traverse.hub.HubStatus.IdConflictStatus;
import io.traverse.hub.HubStatus.KnownHubStatus;
import io.traverse.hub.HubStatus.NameStatus;
import io.traverse.hub.HubStatus.NodeStatus;
import io.traverse.hub.HubStatus.RouteStatus;
import io.traverse.identity.NodeId;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A hub's status document as a person reads it: a summary, the hubs with the route to each,
 * this hub's links with their RTT, its nodes, and the names of the network. Hubs are shown by
 * name wherever gossip told the name. Other hubs found using this hub's id come first of all.
 */
final class StatusText {
    private StatusText() {}

    static String render(HubStatus status) {
        Map<NodeId, String> hubNames = new HashMap<>();
        status.knownHubs().forEach((id, hub) -> hubNames.put(id, hub.name()));
        hubNames.put(status.hubId(), status.name());
        long reachable = status.knownHubs().values().stream()
                .filter(KnownHubStatus::reachable)
                .count();

        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT,
                "hub %s (%s%s), state %d, %s%n",
                status.name(),
                status.hubId(),
                status.idSource() == null ? "" : ", " + status.idSource(),
                status.stateNumber(),
                status.advertisedAddresses().isEmpty()
                        ? "dials out only"
                        : "links on " + String.join(", ", status.advertisedAddresses())));
        List<IdConflictStatus> conflicts = status.idConflicts() == null ? List.of() : status.idConflicts();
        // First, before anything else: while two hubs share an id, the rest of the picture is unreliable.
        List<IdConflictStatus> own =
                conflicts.stream().filter(c -> status.hubId().equals(c.hubId())).toList();
        List<IdConflictStatus> others = conflicts.stream()
                .filter(c -> !status.hubId().equals(c.hubId()))
                .toList();
        if (!own.isEmpty()) {
            out.append(String.format(
                    Locale.ROOT,
                    "%nID CONFLICT: %d other %s this hub's id %s; give one of them a new id"
                            + " (docs/operations.md, \"Hub ids\")%n",
                    own.size(),
                    own.size() == 1 ? "hub uses" : "hubs use",
                    status.hubId()));
            conflicts(out, own, false);
        }
        if (!others.isEmpty()) {
            out.append(String.format(
                    Locale.ROOT,
                    "%nID CONFLICT between other hubs: %d %s the id of a hub linked here already;"
                            + " give one of each pair a new id (docs/operations.md, \"Hub ids\")%n",
                    others.size(),
                    others.size() == 1 ? "hub has" : "hubs have"));
            conflicts(out, others, true);
        }
        if (!conflicts.isEmpty()) {
            out.append('\n');
        }
        out.append(String.format(
                Locale.ROOT,
                "%d other %s known, %d reachable; %d %s here; %d %s in the network%n%n",
                status.knownHubs().size(),
                plural(status.knownHubs().size(), "hub"),
                reachable,
                status.nodes().size(),
                plural(status.nodes().size(), "node"),
                status.names().size(),
                plural(status.names().size(), "name")));

        TextColumns hubs = new TextColumns("hub", "id", "hops", "via", "state", "addresses");
        hubs.add(
                status.name(),
                status.hubId(),
                "this hub",
                null,
                status.stateNumber(),
                addresses(status.advertisedAddresses()));
        List<Map.Entry<NodeId, KnownHubStatus>> known =
                new ArrayList<>(status.knownHubs().entrySet());
        known.sort(Comparator.comparingInt((Map.Entry<NodeId, KnownHubStatus> e) -> hops(status, e.getKey()))
                .thenComparing(e -> e.getValue().name()));
        for (Map.Entry<NodeId, KnownHubStatus> e : known) {
            RouteStatus route = status.routes().get(e.getKey());
            KnownHubStatus hub = e.getValue();
            hubs.add(
                    hub.name(),
                    e.getKey(),
                    route == null ? "unreachable" : route.hops(),
                    route == null
                            ? null
                            : hubNames.getOrDefault(
                                    route.nextHop(), route.nextHop().toString()),
                    hub.stateNumber(),
                    addresses(hub.linkAddresses()));
        }
        out.append("hubs\n").append(hubs.render("  ")).append('\n');

        TextColumns links = new TextColumns("peer", "dialled by", "remote", "rtt");
        status.hubLinks().stream()
                .sorted(Comparator.comparing(
                        l -> hubNames.getOrDefault(l.peerId(), l.peerId().toString())))
                .forEach(l -> links.add(
                        hubNames.getOrDefault(l.peerId(), l.peerId().toString()),
                        l.dialledByUs() ? "this hub" : "the peer",
                        l.remoteAddress(),
                        rtt(l.rttMicros())));
        out.append("links to other hubs\n")
                .append(links.size() == 0 ? "  (none)\n" : links.render("  "))
                .append('\n');

        TextColumns nodes = new TextColumns("node", "observed", "rtt", "names", "identity");
        status.nodes().stream()
                .sorted(Comparator.comparing(NodeStatus::nodeId))
                .forEach(n -> nodes.add(
                        n.nodeId(),
                        n.observedAddress(),
                        rtt(n.rttMicros()),
                        n.names().isEmpty()
                                ? null
                                : String.join(
                                        ",",
                                        n.names().keySet().stream().sorted().toList()),
                        n.identityText()));
        out.append("nodes here\n")
                .append(nodes.size() == 0 ? "  (none)\n" : nodes.render("  "))
                .append('\n');

        TextColumns names = new TextColumns("name", "node", "port", "hub");
        status.names().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            NameStatus n = e.getValue();
            names.add(
                    e.getKey(),
                    n.nodeId(),
                    n.virtualPort(),
                    hubNames.getOrDefault(n.hubId(), n.hubId().toString()));
        });
        out.append("names\n").append(names.size() == 0 ? "  (none)\n" : names.render("  "));
        return out.toString();
    }

    private static void conflicts(StringBuilder out, List<IdConflictStatus> conflicts, boolean withId) {
        TextColumns table = withId
                ? new TextColumns("id", "hub", "seen", "address", "advertises", "times", "last seen")
                : new TextColumns("other hub", "seen", "address", "advertises", "times", "last seen");
        for (IdConflictStatus c : conflicts) {
            List<Object> row = new ArrayList<>();
            if (withId) {
                row.add(c.hubId());
            }
            row.addAll(java.util.Arrays.asList(
                    c.otherName() == null ? "(name unknown)" : c.otherName(),
                    seen(c.seen()),
                    c.otherAddress(),
                    c.otherAdvertisedAddresses() == null
                                    || c.otherAdvertisedAddresses().isEmpty()
                            ? null
                            : String.join(", ", c.otherAdvertisedAddresses()),
                    c.times(),
                    Instant.ofEpochMilli(c.lastSeenMillis()).truncatedTo(ChronoUnit.SECONDS)));
            table.add(row.toArray());
        }
        out.append(table.render("  "));
        for (IdConflictStatus c : conflicts) {
            out.append("  ").append(c.detail()).append('\n');
        }
    }

    private static String seen(String how) {
        return switch (how) {
            case "dialled-us" -> "it dialled this hub";
            case "we-dialled" -> "this hub dialled it";
            case "gossip" -> "by gossip";
            case "reported" -> "a third hub refused us";
            case "both-linked-here" -> "it dialled this hub";
            default -> how;
        };
    }

    private static int hops(HubStatus status, NodeId hub) {
        RouteStatus route = status.routes().get(hub);
        return route == null ? Integer.MAX_VALUE : route.hops();
    }

    private static String addresses(List<String> addresses) {
        return addresses.isEmpty() ? "(dials out only)" : String.join(", ", addresses);
    }

    private static String rtt(long micros) {
        return micros < 0 ? null : String.format(Locale.ROOT, "%.2f ms", micros / 1000.0);
    }

    private static String plural(long count, String word) {
        return count == 1 ? word : word + "s";
    }
}
