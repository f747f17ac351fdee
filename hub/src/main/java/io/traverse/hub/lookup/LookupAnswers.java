package io.traverse.hub.lookup;

import io.traverse.hub.registry.NameRules;
import io.traverse.hub.registry.NetworkIndex;
import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import io.traverse.wire.LinkLimits;
import io.traverse.wire.Lookup;
import io.traverse.wire.LookupResult;
import io.traverse.wire.ResultStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Builds the LOOKUP_RESULT for a LOOKUP. Listings are sorted and cut short (status PARTIAL)
 * before they would overflow one frame.
 */
public final class LookupAnswers {
    /** Room left in a frame for the entries of a listing. */
    static final int LISTING_BUDGET = LinkLimits.MAX_FRAME_AFTER_AUTH - 16 * 1024;

    private LookupAnswers() {}

    public static LookupResult answer(Lookup lookup, NetworkView view) {
        int id = lookup.requestId();
        String argument = lookup.argument().trim();
        return switch (lookup.kind()) {
            case NAME -> name(id, argument, view);
            case NODE -> node(id, argument, view);
            case HUBS -> listing(id, hubs(view));
            case LINKS -> listing(id, links(view));
            case NODES -> listing(id, nodes(view));
            case NAMES -> listing(id, names(view));
        };
    }

    private static LookupResult name(int id, String argument, NetworkView view) {
        NetworkIndex.NameHolder holder = view.index().name(NameRules.canonical(argument));
        if (holder == null) {
            return new LookupResult(id, ResultStatus.NOT_FOUND, List.of());
        }
        NetworkIndex.NodeLocation node = view.index().node(holder.nodeId());
        return new LookupResult(id, ResultStatus.OK, List.of(node.identityText() + ":" + holder.virtualPort()));
    }

    private static LookupResult node(int id, String argument, NetworkView view) {
        NodeId nodeId;
        try {
            nodeId = NodeId.of(argument);
        } catch (IllegalArgumentException e) {
            return new LookupResult(id, ResultStatus.INVALID, List.of());
        }
        NetworkIndex.NodeLocation location = view.index().node(nodeId);
        if (location == null) {
            return new LookupResult(id, ResultStatus.NOT_FOUND, List.of());
        }
        List<String> entries = new ArrayList<>();
        entries.add(location.hubId().toString());
        HubDescription hub = view.description(location.hubId());
        if (hub != null) {
            entries.addAll(hub.linkAddresses());
        }
        return new LookupResult(id, ResultStatus.OK, entries);
    }

    private static List<String> hubs(NetworkView view) {
        List<String> entries = new ArrayList<>();
        for (HubDescription hub : view.nearestFirst()) {
            entries.add(hub.hubId() + " " + hub.name() + " " + view.hops(hub.hubId()) + " "
                    + (hub.linkAddresses().isEmpty() ? "-" : String.join(",", hub.linkAddresses())));
        }
        return entries;
    }

    private static List<String> links(NetworkView view) {
        List<String> entries = new ArrayList<>();
        for (List<NodeId> edge : view.routes().graph().edges()) {
            if (view.routes().isReachable(edge.get(0))) {
                entries.add(edge.get(0) + " " + edge.get(1));
            }
        }
        return entries;
    }

    private static List<String> nodes(NetworkView view) {
        List<String> entries = new ArrayList<>();
        view.index().nodes().values().stream()
                .sorted(Comparator.comparing(NetworkIndex.NodeLocation::nodeId))
                .forEach(n -> entries.add(n.nodeId() + " " + n.hubId() + " " + n.identityText()));
        return entries;
    }

    private static List<String> names(NetworkView view) {
        List<String> entries = new ArrayList<>();
        view.index().names().entrySet().stream()
                .sorted(java.util.Map.Entry.comparingByKey())
                .forEach(e -> entries.add(e.getKey() + " " + e.getValue().nodeId() + " "
                        + e.getValue().virtualPort() + " " + e.getValue().hubId()));
        return entries;
    }

    private static LookupResult listing(int id, List<String> all) {
        List<String> fitting = new ArrayList<>();
        long bytes = 0;
        for (String entry : all) {
            bytes += 2 + entry.getBytes(StandardCharsets.UTF_8).length;
            if (bytes > LISTING_BUDGET || fitting.size() == LinkLimits.MAX_LIST) {
                return new LookupResult(id, ResultStatus.PARTIAL, fitting);
            }
            fitting.add(entry);
        }
        return new LookupResult(id, ResultStatus.OK, fitting);
    }
}
