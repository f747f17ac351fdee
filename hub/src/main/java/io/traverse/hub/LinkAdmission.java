package io.traverse.hub;

import io.traverse.hub.gossip.HubDirectory;
import io.traverse.hub.link.Link;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.registry.ConnectedNode;
import io.traverse.hub.registry.NodeRegistry;
import io.traverse.hub.relay.RelayRouter;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.wire.HubDescription;
import io.traverse.wire.NodeHello;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import java.net.InetSocketAddress;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who gets in: a node (one live link per node id across the reachable network, within the limits
 * and this hub's description), a node's data link (bound to its link), and a hub (one link per
 * pair of hubs, the same one kept at both ends; a second hub with one id is refused). State loop
 * only.
 */
final class LinkAdmission {
    /** Under the coordinator's name, as the hub has always logged these: log filters keep working. */
    private static final Logger log = LoggerFactory.getLogger(HubCore.class);

    private final NodeId selfId;
    private final String name;
    private final int maxHubLinks;
    private final NodeRegistry registry;
    private final HubDirectory directory;
    /** The coordinator's live hub links, by peer: admission adds and replaces them. */
    private final Map<NodeId, Link> hubLinks;

    private final RouteScheduler routeScheduler;
    private final DescriptionBudget budget;
    private final IdConflictReports idConflicts;
    private final RelayRouter relayRouter;
    private final HubMetrics metrics;
    /** Run when a node or hub link is admitted: the next links the I/O threads use are stale. */
    private final Runnable nextLinksStale;
    /** Run when a hub is linked that was not: the set of linked hubs changed. */
    private final Runnable hubLinked;

    LinkAdmission(
            NodeId selfId,
            String name,
            int maxHubLinks,
            NodeRegistry registry,
            HubDirectory directory,
            Map<NodeId, Link> hubLinks,
            RouteScheduler routeScheduler,
            DescriptionBudget budget,
            IdConflictReports idConflicts,
            RelayRouter relayRouter,
            HubMetrics metrics,
            Runnable nextLinksStale,
            Runnable hubLinked) {
        this.selfId = selfId;
        this.name = name;
        this.maxHubLinks = maxHubLinks;
        this.registry = registry;
        this.directory = directory;
        this.hubLinks = hubLinks;
        this.routeScheduler = routeScheduler;
        this.budget = budget;
        this.idConflicts = idConflicts;
        this.relayRouter = relayRouter;
        this.metrics = metrics;
        this.nextLinksStale = nextLinksStale;
        this.hubLinked = hubLinked;
    }

    /** Returns null to admit the link, or the REJECT that refuses it. */
    Reject admit(Link link) {
        return switch (link.kind()) {
            case NODE -> admitNode(link);
            case NODE_DATA -> admitDataLink(link);
            case HUB -> admitHub(link);
        };
    }

    /**
     * A node's data link is bound to its link: the node must be linked here, from the same IP
     * address, without a data link yet. The two live and die together.
     */
    private Reject admitDataLink(Link link) {
        ConnectedNode node = registry.get(link.peerId());
        if (node == null) {
            return Reject.of(
                    RejectCode.PROTOCOL,
                    "node " + link.peerId() + " has no link to hub " + name + " to bind a data link to");
        }
        if (!link.isBoundTo(node.link())) {
            log.warn(
                    "Refused a data link for node {} from {}: not bound to its link (wrong token, or another link's handshake)",
                    link.peerId(),
                    link.remoteAddress());
            return Reject.of(
                    RejectCode.AUTH,
                    "this data link is not bound to the link of node " + link.peerId()
                            + " (wrong network token, or another link's handshake)");
        }
        InetSocketAddress control = node.link().remoteAddress();
        InetSocketAddress data = link.remoteAddress();
        if (control == null || data == null || !control.getAddress().equals(data.getAddress())) {
            return Reject.of(
                    RejectCode.PROTOCOL,
                    "the data link of node " + link.peerId() + " comes from " + data + ", its link from " + control);
        }
        if (node.dataLink() != null && node.dataLink().isOpen()) {
            return Reject.of(RejectCode.DUPLICATE_LINK, "node " + link.peerId() + " has a data link already");
        }
        node.dataLink(link);
        // Not read until the node's DATA_LINK_SWITCH on its link: its frames before that come first.
        // On the link's own loop, ahead of its WELCOME (queued after this): only there is the hold
        // sure to stop a read that is already armed.
        link.execute(link::holdReading);
        return null;
    }

    /** A node's identity must name its id, and the id must not be live here or at a reachable hub. */
    private Reject admitNode(Link link) {
        NodeHello hello = (NodeHello) link.hello();
        String problem = identityProblem(link.peerId(), hello.identityText());
        if (problem != null) {
            return Reject.of(RejectCode.PROTOCOL, problem);
        }
        ConnectedNode existing = registry.get(link.peerId());
        if (existing != null) {
            log.info(
                    "Refused node {} from {}: already connected from {}",
                    link.peerId(),
                    link.remoteAddress(),
                    existing.observedAddress());
            return Reject.of(RejectCode.DUPLICATE_ID, "node " + link.peerId() + " is already connected to hub " + name);
        }
        for (NodeId otherHub : directory.hubsListing(link.peerId())) {
            // Live elsewhere: refused until that hub lets it go. A node that moved because its old
            // link broke gets in once its old hub notices (at most 3 keepalive intervals) or drops out of the graph.
            if (routeScheduler.routes().isReachable(otherHub)) {
                HubDescription other = directory.get(otherHub);
                log.info(
                        "Refused node {} from {}: connected to hub {} ({})",
                        link.peerId(),
                        link.remoteAddress(),
                        other.name(),
                        otherHub);
                return Reject.of(
                        RejectCode.DUPLICATE_ID,
                        "node " + link.peerId() + " is already connected to hub " + other.name() + " (" + otherHub
                                + "); a node that moved is admitted once that hub has let it go");
            }
        }
        if (registry.isFull()) {
            metrics.overloaded(AdmissionLimit.NODES);
            return Reject.of(
                    RejectCode.LIMIT, AdmissionLimit.NODES.reason(registry.size() + " nodes are linked", name));
        }
        if (!budget.takeNode(link.peerId(), hello.identityText())) {
            return Reject.of(RejectCode.LIMIT, "hub " + name + " cannot describe more nodes in its gossip");
        }
        registry.add(link.peerId(), link, hello.identityText());
        relayRouter.nodeJoined(link.peerId());
        nextLinksStale.run();
        return null;
    }

    /** One link per pair of hubs: of two, both ends keep the same one ({@link #isPreferred}). */
    private Reject admitHub(Link link) {
        NodeId peer = link.peerId();
        if (peer.equals(selfId)) {
            // Not this hub dialling itself: that dial stops at our CHALLENGE (OwnChallenges). Another hub has our id.
            return idConflicts.otherHubWithOurId(link);
        }
        Link existing = hubLinks.get(peer);
        if (existing != null) {
            Reject twin = idConflicts.secondHubWithOneId(link, existing);
            if (twin != null) {
                return twin;
            }
            if (!isPreferred(link, existing)) {
                log.info(
                        "Closing duplicate link with hub {} ({}): keeping the one dialled by {}",
                        peer,
                        link,
                        dialler(existing));
                return Reject.of(RejectCode.DUPLICATE_LINK, "hubs " + selfId + " and " + peer + " are linked already");
            }
            log.info(
                    "Closing duplicate link with hub {} ({}): keeping the one dialled by {}",
                    peer,
                    existing,
                    dialler(link));
            hubLinks.put(peer, link);
            nextLinksStale.run();
            existing.close(RejectCode.DUPLICATE_LINK, "hubs " + selfId + " and " + peer + " are linked already");
            return null;
        }
        if (hubLinks.size() >= maxHubLinks) {
            return Reject.of(RejectCode.LIMIT, "hub " + name + " has its maximum of " + maxHubLinks + " hub links");
        }
        hubLinks.put(peer, link);
        nextLinksStale.run();
        hubLinked.run();
        return null;
    }

    /**
     * Of two links between the same hubs, both ends keep the one dialled by the hub with the
     * smaller id; of two dialled by the same hub, the newer (the older is likely dead already).
     */
    private boolean isPreferred(Link candidate, Link existing) {
        NodeId candidateDialler = dialler(candidate);
        NodeId existingDialler = dialler(existing);
        if (candidateDialler.equals(existingDialler)) {
            return candidate.serial() > existing.serial();
        }
        NodeId preferred = selfId.compareTo(candidate.peerId()) < 0 ? selfId : candidate.peerId();
        return candidateDialler.equals(preferred);
    }

    private NodeId dialler(Link link) {
        return link.dialledByUs() ? selfId : link.peerId();
    }

    /** Why a node's identity text does not do for its id (it must name that id), or null. */
    static String identityProblem(NodeId nodeId, String identityText) {
        NodeIdentity identity;
        try {
            identity = NodeIdentity.parse(identityText);
        } catch (IllegalArgumentException e) {
            return "identity text: " + e.getMessage();
        }
        if (identity.id().isEmpty() || !identity.id().get().equals(nodeId)) {
            return "identity text names node "
                    + identity.id().map(NodeId::toString).orElse("(none)") + ", the HELLO node " + nodeId;
        }
        return null;
    }
}
