package io.traverse.hub;

import io.traverse.hub.gossip.HubDirectory;
import io.traverse.hub.lookup.LookupAnswers;
import io.traverse.hub.lookup.NetworkView;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.registry.ConnectedNode;
import io.traverse.hub.registry.NameReservations;
import io.traverse.hub.registry.NameRules;
import io.traverse.hub.registry.NetworkIndex;
import io.traverse.hub.registry.NodeRegistry;
import io.traverse.hub.routing.HubRoutingTable;
import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import io.traverse.wire.Lookup;
import io.traverse.wire.LookupResult;
import io.traverse.wire.NameBind;
import io.traverse.wire.NameRelease;
import io.traverse.wire.Result;
import io.traverse.wire.ResultStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names and lookups: binding and releasing the names of nodes linked here, unique across the
 * reachable network, and answering where a node or name is, from a view of the network made on
 * demand and kept until the network changes. A name belongs to the node (the key) that bound it:
 * while that node is linked anywhere in the network, or for {@link NameReservations#hold()} after
 * its link to this hub went, another node's claim is refused, naming both, and logged. State loop
 * only.
 */
final class NameService {
    /** Under the coordinator's name, as the hub has always logged these: log filters keep working. */
    private static final Logger log = LoggerFactory.getLogger(HubCore.class);

    private final NodeId selfId;
    private final String name;
    private final NodeRegistry registry;
    private final NameReservations reservations;
    private final HubDirectory directory;
    private final RouteScheduler routeScheduler;
    private final GossipPublisher publisher;
    private final DescriptionBudget budget;
    private final HubMetrics metrics;
    private NetworkView view;

    NameService(
            NodeId selfId,
            String name,
            NodeRegistry registry,
            NameReservations reservations,
            HubDirectory directory,
            RouteScheduler routeScheduler,
            GossipPublisher publisher,
            DescriptionBudget budget,
            HubMetrics metrics) {
        this.metrics = metrics;
        this.selfId = selfId;
        this.name = name;
        this.registry = registry;
        this.reservations = reservations;
        this.directory = directory;
        this.routeScheduler = routeScheduler;
        this.publisher = publisher;
        this.budget = budget;
    }

    /** The network changed: the view is made afresh when next needed. */
    void forgetView() {
        view = null;
    }

    LookupResult answer(Lookup lookup) {
        return LookupAnswers.answer(lookup, view());
    }

    /** The hub a remote node is at, or null if no reachable hub lists it. */
    NodeId hubOf(NodeId node) {
        NetworkIndex.NodeLocation location = view().index().node(node);
        return location == null ? null : location.hubId();
    }

    /** Every name in the reachable network, with its holder. */
    Map<String, NetworkIndex.NameHolder> names() {
        return view().index().names();
    }

    /**
     * A node binds a name: refused if it is invalid, held by or reserved for another node anywhere
     * reachable, over the node's limit of names, or more than this hub's description can carry.
     */
    Result bind(ConnectedNode node, NameBind bind) {
        int id = bind.requestId();
        String problem = NameRules.problem(bind.name());
        if (problem != null) {
            return Result.of(id, ResultStatus.INVALID, "name '" + bind.name() + "': " + problem);
        }
        String canonical = NameRules.canonical(bind.name());
        ConnectedNode localOwner = registry.ownerOf(canonical);
        if (localOwner == node) {
            registry.bind(node, canonical, bind.virtualPort());
            publisher.ownChanged();
            return Result.of(
                    id, ResultStatus.OK, "name '" + canonical + "' now points to virtual port " + bind.virtualPort());
        }
        if (localOwner != null) {
            return taken(id, canonical, node, "held by node " + localOwner.id() + " at hub " + name);
        }
        NameReservations.Reservation reserved = reservations.get(canonical);
        if (reserved != null && !reserved.holder().equals(node.id())) {
            long leftMillis = TimeUnit.NANOSECONDS.toMillis(reserved.untilNanos() - System.nanoTime());
            return taken(
                    id,
                    canonical,
                    node,
                    "reserved for node " + reserved.holder() + ", whose link to hub " + name + " went, for "
                            + Math.max(0, leftMillis) + " ms more");
        }
        NetworkIndex.NameHolder claim = view().index().claim(canonical);
        if (claim != null && !claim.nodeId().equals(node.id())) {
            return taken(
                    id,
                    canonical,
                    node,
                    (claim.reserved() ? "reserved for node " : "held by node ") + claim.nodeId() + " at hub "
                            + claim.hubId());
        }
        if (registry.atNameLimit(node)) {
            metrics.overloaded(AdmissionLimit.NAMES_PER_NODE);
            return Result.of(
                    id,
                    ResultStatus.LIMIT,
                    AdmissionLimit.NAMES_PER_NODE.reason(
                            "node " + node.id() + " holds " + registry.maxNamesPerNode() + " names", name));
        }
        if (reserved != null) {
            // Its own node takes it back: the reservation's room in the description goes to the binding.
            reservations.remove(canonical);
            budget.releaseName(canonical, reserved.holder());
        }
        if (!budget.takeName(canonical, node.id())) {
            return Result.of(id, ResultStatus.LIMIT, "hub " + name + " cannot describe more names in its gossip");
        }
        registry.bind(node, canonical, bind.virtualPort());
        log.debug("Node {} bound name '{}' to virtual port {}", node.id(), canonical, bind.virtualPort());
        publisher.ownChanged();
        return Result.of(id, ResultStatus.OK, "name '" + canonical + "' bound");
    }

    /**
     * NAME_TAKEN naming the claimant and ({@code how}) the holder, and one line in the log: someone
     * may be posing as a service.
     */
    private Result taken(int requestId, String canonical, ConnectedNode claimant, String how) {
        log.warn("Refused name '{}' to node {}: it is {}", canonical, claimant.id(), how);
        return Result.of(
                requestId,
                ResultStatus.NAME_TAKEN,
                "name '" + canonical + "' is " + how + "; node " + claimant.id() + " may not take it");
    }

    /** A node releases a name it holds here, or one reserved here for it. */
    Result release(ConnectedNode node, NameRelease release) {
        String canonical = NameRules.canonical(release.name());
        ConnectedNode localOwner = registry.ownerOf(canonical);
        NameReservations.Reservation reserved = reservations.get(canonical);
        if (localOwner == node
                || localOwner == null && reserved != null && reserved.holder().equals(node.id())) {
            if (localOwner == node) {
                registry.release(node, canonical);
            } else {
                reservations.remove(canonical);
            }
            budget.releaseName(canonical, node.id());
            publisher.ownChanged();
            return Result.of(release.requestId(), ResultStatus.OK, "name '" + canonical + "' released");
        }
        if (localOwner != null || reserved != null || view().index().claim(canonical) != null) {
            return Result.of(
                    release.requestId(), ResultStatus.NOT_OWNER, "name '" + canonical + "' belongs to another node");
        }
        return Result.of(release.requestId(), ResultStatus.NOT_FOUND, "no name '" + canonical + "'");
    }

    /**
     * A node's link went (it was removed from the registry, its description budget released):
     * its names stay reserved for it. Returns what the log line of its leaving adds.
     */
    String nodeLeft(ConnectedNode node) {
        if (node.names().isEmpty()) {
            return "";
        }
        if (!reservations.enabled()) {
            return ", releasing names " + node.names().keySet();
        }
        long now = System.nanoTime();
        for (String n : node.names().keySet()) {
            // Fits: the same bytes the node's binding took were just released.
            if (budget.takeName(n, node.id())) {
                reservations.reserve(n, node.id(), now);
            }
        }
        return ", keeping names " + node.names().keySet() + " for it for "
                + reservations.hold().toMillis() + " ms";
    }

    /**
     * Periodic: ends reservations whose time is up, and those whose node binds the name again at
     * another hub (it is back; its own release there must free the name).
     */
    void expireReservations(long nowNanos) {
        if (reservations.all().isEmpty()) {
            return;
        }
        boolean changed = false;
        for (Map.Entry<String, NameReservations.Reservation> e : reservations.expire(nowNanos)) {
            budget.releaseName(e.getKey(), e.getValue().holder());
            log.info(
                    "Name '{}' is free again: node {} did not bind it again within {} ms",
                    e.getKey(),
                    e.getValue().holder(),
                    reservations.hold().toMillis());
            changed = true;
        }
        NetworkIndex index = view().index();
        for (Map.Entry<String, NameReservations.Reservation> e :
                List.copyOf(reservations.all().entrySet())) {
            NetworkIndex.NameHolder bound = index.name(e.getKey());
            if (bound != null && bound.nodeId().equals(e.getValue().holder())) {
                reservations.remove(e.getKey());
                budget.releaseName(e.getKey(), e.getValue().holder());
                log.debug("Node {} holds name '{}' at hub {} again", bound.nodeId(), e.getKey(), bound.hubId());
                changed = true;
            }
        }
        if (changed) {
            publisher.ownChanged();
        }
    }

    private NetworkView view() {
        if (view == null) {
            HubRoutingTable routes = routeScheduler.routes();
            List<HubDescription> nearestFirst = new ArrayList<>();
            nearestFirst.add(publisher.ownDescription());
            List<HubDescription> others = new ArrayList<>();
            for (HubDescription d : directory.descriptions()) {
                if (routes.isReachable(d.hubId())) {
                    others.add(d);
                }
            }
            others.sort(Comparator.<HubDescription>comparingInt(
                            d -> routes.route(d.hubId()).get().hops())
                    .thenComparing(HubDescription::hubId));
            nearestFirst.addAll(others);
            view = new NetworkView(selfId, nearestFirst, routes, NetworkIndex.of(nearestFirst));
        }
        return view;
    }
}
