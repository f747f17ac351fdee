package io.traverse.hub;

import io.traverse.hub.gossip.HubDirectory;
import io.traverse.hub.lookup.LookupAnswers;
import io.traverse.hub.lookup.NetworkView;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.registry.ConnectedNode;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names and lookups: binding and releasing the names of nodes linked here, unique across the
 * reachable network, and answering where a node or name is, from a view of the network made on
 * demand and kept until the network changes. State loop only.
 */
final class NameService {
    /** Under the coordinator's name, as the hub has always logged these: log filters keep working. */
    private static final Logger log = LoggerFactory.getLogger(HubCore.class);

    private final NodeId selfId;
    private final String name;
    private final NodeRegistry registry;
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
            HubDirectory directory,
            RouteScheduler routeScheduler,
            GossipPublisher publisher,
            DescriptionBudget budget,
            HubMetrics metrics) {
        this.metrics = metrics;
        this.selfId = selfId;
        this.name = name;
        this.registry = registry;
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
     * A node binds a name: refused if it is invalid, held by another node anywhere reachable, over
     * the node's limit of names, or more than this hub's description can carry.
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
            return Result.of(
                    id,
                    ResultStatus.NAME_TAKEN,
                    "name '" + canonical + "' is held by node " + localOwner.id() + " at hub " + name);
        }
        NetworkIndex.NameHolder remote = view().index().name(canonical);
        if (remote != null && !remote.nodeId().equals(node.id())) {
            return Result.of(
                    id,
                    ResultStatus.NAME_TAKEN,
                    "name '" + canonical + "' is held by node " + remote.nodeId() + " at hub " + remote.hubId());
        }
        if (registry.atNameLimit(node)) {
            metrics.overloaded(AdmissionLimit.NAMES_PER_NODE);
            return Result.of(
                    id,
                    ResultStatus.LIMIT,
                    AdmissionLimit.NAMES_PER_NODE.reason(
                            "node " + node.id() + " holds " + registry.maxNamesPerNode() + " names", name));
        }
        if (!budget.takeName(canonical, node.id())) {
            return Result.of(id, ResultStatus.LIMIT, "hub " + name + " cannot describe more names in its gossip");
        }
        registry.bind(node, canonical, bind.virtualPort());
        log.debug("Node {} bound name '{}' to virtual port {}", node.id(), canonical, bind.virtualPort());
        publisher.ownChanged();
        return Result.of(id, ResultStatus.OK, "name '" + canonical + "' bound");
    }

    /** A node releases a name it holds here. */
    Result release(ConnectedNode node, NameRelease release) {
        String canonical = NameRules.canonical(release.name());
        ConnectedNode localOwner = registry.ownerOf(canonical);
        if (localOwner == node) {
            registry.release(node, canonical);
            budget.releaseName(canonical, node.id());
            publisher.ownChanged();
            return Result.of(release.requestId(), ResultStatus.OK, "name '" + canonical + "' released");
        }
        if (localOwner != null || view().index().name(canonical) != null) {
            return Result.of(
                    release.requestId(), ResultStatus.NOT_OWNER, "name '" + canonical + "' belongs to another node");
        }
        return Result.of(release.requestId(), ResultStatus.NOT_FOUND, "no name '" + canonical + "'");
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
