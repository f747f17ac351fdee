package io.traverse.cli.status;

import io.traverse.hub.status.HubStatusReport;
import io.traverse.hub.status.HubStatusReport.HubEntry;
import io.traverse.hub.status.HubStatusReport.LinkEntry;
import io.traverse.hub.status.HubStatusReport.NameEntry;
import io.traverse.hub.status.HubStatusReport.NodeEntry;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A hub's status document as a person reads it: a summary line, then hubs with their routes,
 * this hub's links with RTT and age, nodes and names. Hub ids are shown by name where the name is
 * known.
 */
final class StatusText {
    private StatusText() {
    }

    static String render(HubStatusReport report) {
        Map<String, String> hubNames = new HashMap<>();
        for (HubEntry hub : report.hubs()) {
            hubNames.put(hub.id(), hub.name());
        }
        hubNames.put(report.self().id(), report.self().name());
        long reachable = report.hubs().stream().filter(HubEntry::reachable).count();
        long localNodes = report.nodes().stream().filter(n -> report.self().id().equals(n.hubId())).count();

        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "hub %s (%s), state %d, links on %s%n", report.self().name(),
                report.self().id(), report.self().state(), String.join(", ", report.self().addresses())));
        out.append(String.format(Locale.ROOT, "%d %s known, %d reachable; %d %s here, %d in the network; %d %s%n%n",
                report.hubs().size(), plural(report.hubs().size(), "hub"), reachable, localNodes,
                plural(localNodes, "node"), report.nodes().size(), report.names().size(),
                plural(report.names().size(), "name")));

        TextColumns hubs = new TextColumns("hub", "id", "hops", "via", "state", "addresses");
        report.hubs().stream()
                .sorted(Comparator.comparingInt((HubEntry h) -> h.reachable() ? h.hops() : Integer.MAX_VALUE)
                        .thenComparing(HubEntry::name))
                .forEach(h -> hubs.add(h.name(), h.id(), h.hops() == 0 ? "this hub" : h.reachable() ? h.hops() : "unreachable",
                        h.nextHopId() == null ? null : hubNames.getOrDefault(h.nextHopId(), h.nextHopId()), h.state(),
                        h.addresses().isEmpty() ? "(dials out only)" : String.join(", ", h.addresses())));
        out.append("hubs\n").append(hubs.render("  ")).append('\n');

        TextColumns links = new TextColumns("kind", "peer", "direction", "remote", "rtt", "up for");
        long now = report.generatedAtMillis();
        report.links().stream()
                .sorted(Comparator.comparing(LinkEntry::kind).thenComparing(LinkEntry::peerId))
                .forEach(l -> links.add(l.kind(), l.peerName() != null ? l.peerName() : l.peerId(), l.direction(),
                        l.remoteAddress(), l.rttMillis() == null ? null : String.format(Locale.ROOT, "%.2f ms", l.rttMillis()),
                        age(Duration.ofMillis(Math.max(0, now - l.upSinceMillis())))));
        out.append("links of ").append(report.self().name()).append('\n')
                .append(links.size() == 0 ? "  (none)\n" : links.render("  ")).append('\n');

        TextColumns nodes = new TextColumns("node", "hub", "observed", "identity");
        report.nodes().stream()
                .sorted(Comparator.comparing((NodeEntry n) -> hubNames.getOrDefault(n.hubId(), n.hubId())).thenComparing(NodeEntry::id))
                .forEach(n -> nodes.add(n.id(), hubNames.getOrDefault(n.hubId(), n.hubId()), n.observedAddress(), n.identity()));
        out.append("nodes\n").append(nodes.size() == 0 ? "  (none)\n" : nodes.render("  ")).append('\n');

        TextColumns names = new TextColumns("name", "node", "port", "hub");
        report.names().stream().sorted(Comparator.comparing(NameEntry::name))
                .forEach(n -> names.add(n.name(), n.nodeId(), n.port(), hubNames.getOrDefault(n.hubId(), n.hubId())));
        out.append("names\n").append(names.size() == 0 ? "  (none)\n" : names.render("  "));
        return out.toString();
    }

    private static String plural(long count, String word) {
        return count == 1 ? word : word + "s";
    }

    static String age(Duration d) {
        long s = d.toSeconds();
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min " + s % 60 + " s";
        }
        if (s < 86_400) {
            return s / 3600 + " h " + s % 3600 / 60 + " min";
        }
        return s / 86_400 + " d " + s % 86_400 / 3600 + " h";
    }

}
