package io.traverse.hub;

import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.traverse.hub.gossip.HubDirectory;
import io.traverse.hub.gossip.StateNumber;
import io.traverse.hub.identity.IdConflicts;
import io.traverse.hub.link.Link;
import io.traverse.hub.link.LinkEvents;
import io.traverse.hub.link.LinkKind;
import io.traverse.hub.link.LinkRefusedException;
import io.traverse.hub.link.LoopBarrier;
import io.traverse.hub.link.PeerDialing;
import io.traverse.hub.lookup.LookupAnswers;
import io.traverse.hub.lookup.NetworkView;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.registry.ConnectedNode;
import io.traverse.hub.registry.NameRules;
import io.traverse.hub.registry.NetworkIndex;
import io.traverse.hub.registry.NodeRegistry;
import io.traverse.hub.relay.RelayRouter;
import io.traverse.hub.relay.RelayedConnections;
import io.traverse.hub.routing.HubRoutingTable;
import io.traverse.hub.sidechannel.SideChannelNetwork;
import io.traverse.hub.sidechannel.SideChannelRouter;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.wire.DataLinkSwitch;
import io.traverse.wire.Gossip;
import io.traverse.wire.GossipDigest;
import io.traverse.wire.GossipSummary;
import io.traverse.wire.HubDescription;
import io.traverse.wire.LinkAddress;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Lookup;
import io.traverse.wire.NameBind;
import io.traverse.wire.NameRelease;
import io.traverse.wire.NodeHello;
import io.traverse.wire.NodeUpdate;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import io.traverse.wire.Relay;
import io.traverse.wire.Result;
import io.traverse.wire.ResultStatus;
import io.traverse.wire.SideMessage;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hub's state and decisions, all on one state loop (no locks): who is admitted, what the
 * hub gossips, the routing table, names, lookups and the side channel. Links report here through
 * {@link LinkEvents}; nothing here blocks.
 */
final class HubCore implements LinkEvents, SideChannelNetwork {
    private static final Logger log = LoggerFactory.getLogger(HubCore.class);

    private final HubConfig config;
    private final NodeId selfId;
    private final String name;
    private final List<String> advertised;
    private final String idSource;
    private final IdConflictReports idConflicts;
    private final StateNumber state;
    private final NodeRegistry registry;
    /** Hubs known at most: the network is meant for tens to hundreds of sites. */
    static final int MAX_KNOWN_HUBS = 4096;

    private final HubDirectory directory = new HubDirectory(MAX_KNOWN_HUBS);
    /** The live links to neighbouring hubs, by peer: shared with the parts, changed only by admission and {@link #closed}. */
    private final Map<NodeId, Link> hubLinks = new LinkedHashMap<>();

    private final SideChannelRouter router;
    private final RelayRouter relayRouter;
    private final HubMetrics metrics;
    private final long expiryNanos;
    private PeerDialing dialing;
    private NetworkView view;
    private boolean shuttingDown;
    private long linksChangedNanos = System.nanoTime();
    private final DescriptionBudget budget;
    private final RouteScheduler routeScheduler;
    private final GossipPublisher publisher;
    private final GossipExchange exchange;

    HubCore(
            HubConfig config,
            NodeId selfId,
            String name,
            String idSource,
            List<String> advertised,
            StateNumber state,
            EventExecutor stateLoop,
            HubMetrics metrics) {
        this.metrics = metrics;
        this.config = config;
        this.selfId = selfId;
        this.name = name;
        this.idSource = idSource;
        this.advertised = List.copyOf(advertised);
        this.state = state;
        this.registry = new NodeRegistry(config.maxNodes(), config.maxNamesPerNode());
        this.router = new SideChannelRouter(
                this,
                metrics,
                config.maxPendingRequestsPerNode(),
                config.sideRequestTimeout().toMillis());
        this.relayRouter = new RelayRouter(
                this,
                stateLoop,
                metrics,
                config.sideRequestTimeout().toMillis(),
                new RelayedConnections(
                        name, config.maxRelayedPerNode(), config.maxSetupsPerNode(), config.maxRelayed()));
        this.expiryNanos = config.hubExpiry().toNanos();
        this.budget = new DescriptionBudget(name, advertised);
        this.idConflicts = new IdConflictReports(selfId, name, this.advertised, idSource, directory, metrics);
        this.routeScheduler = new RouteScheduler(selfId, directory, stateLoop, this::forgetView, () -> {
            forgetView();
            updateGauges();
        });
        this.publisher = new GossipPublisher(
                selfId,
                name,
                this.advertised,
                state,
                stateLoop,
                registry,
                directory,
                hubLinks,
                () -> shuttingDown,
                () -> {
                    forgetView();
                    updateGauges();
                });
        this.exchange = new GossipExchange(
                selfId,
                name,
                this.advertised,
                state,
                directory,
                hubLinks,
                metrics,
                publisher,
                routeScheduler,
                idConflicts,
                this::forgetView);
    }

    void dialing(PeerDialing peerDialing) {
        this.dialing = peerDialing;
        exchange.dialing(peerDialing);
    }

    // ---- links ----

    @Override
    public Reject admit(Link link) {
        if (shuttingDown) {
            return new Reject(RejectCode.SHUTTING_DOWN, "hub " + name + " is shutting down");
        }
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
        forgetNextLinks();
        return null;
    }

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
            forgetNextLinks();
            existing.close(RejectCode.DUPLICATE_LINK, "hubs " + selfId + " and " + peer + " are linked already");
            return null;
        }
        if (hubLinks.size() >= config.maxHubLinks()) {
            return Reject.of(
                    RejectCode.LIMIT, "hub " + name + " has its maximum of " + config.maxHubLinks() + " hub links");
        }
        hubLinks.put(peer, link);
        forgetNextLinks();
        linksChangedNanos = System.nanoTime();
        return null;
    }

    /**
     * This hub dialled an address whose hub refused the link because a hub with this hub's id is
     * that hub itself or linked with it (its reason names it).
     */
    void dialledHubHasOurId(String address, LinkRefusedException refusal) {
        idConflicts.dialledHubHasOurId(address, refusal);
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

    @Override
    public void established(Link link) {
        if (link.kind() == LinkKind.NODE_DATA) {
            log.debug("Node {} opened its data link from {}", link.peerId(), link.remoteAddress());
            return;
        }
        if (link.kind() == LinkKind.NODE) {
            log.info("Node {} connected from {}", link.peerId(), link.remoteAddress());
            publisher.ownChanged();
            return;
        }
        if (hubLinks.get(link.peerId()) != link) {
            return;
        }
        log.info(
                "Linked with hub {} ({} {})",
                link.peerId(),
                link.dialledByUs() ? "dialled" : "accepted",
                link.remoteAddress());
        publisher.linkAdded(link);
        exchange.linkEstablished(link);
        routeScheduler.ownLinksChanged(hubLinks.keySet());
        publisher.ownChanged();
    }

    @Override
    public boolean isStaleGossip(NodeId hubId, long stateNumber) {
        boolean stale = directory.holdsAtLeast(hubId, stateNumber);
        if (stale) {
            metrics.gossip(false);
        }
        return stale;
    }

    @Override
    public void gossipFrameArrived(int frameBytes) {
        metrics.gossipBytesReceived(frameBytes);
    }

    @Override
    public void closed(Link link) {
        if (link.kind() == LinkKind.NODE_DATA) {
            ConnectedNode node = registry.get(link.peerId());
            if (node != null && node.dataLink() == link) {
                // Bound together: the node links again, with a new data link.
                node.dataLink(null);
                forgetNextLinks();
                node.link().close(RejectCode.PROTOCOL, "the data link of node " + node.id() + " is gone");
            }
            return;
        }
        if (link.kind() == LinkKind.NODE) {
            ConnectedNode node = registry.remove(link);
            forgetNextLinks();
            if (node != null && node.dataLink() != null) {
                node.dataLink().close();
            }
            if (node != null) {
                budget.releaseNode(node);
                router.nodeLeft(node.id());
                relayRouter.nodeLeft(node.id());
                log.info(
                        "Node {} left{}",
                        node.id(),
                        node.names().isEmpty()
                                ? ""
                                : ", releasing names " + node.names().keySet());
                publisher.ownChanged();
            }
            return;
        }
        exchange.linkGone(link);
        publisher.linkGone(link);
        if (hubLinks.get(link.peerId()) == link) {
            hubLinks.remove(link.peerId());
            forgetNextLinks();
            linksChangedNanos = System.nanoTime();
            log.info("Link with hub {} is gone; routes through it are withdrawn", link.peerId());
            routeScheduler.ownLinksChanged(hubLinks.keySet());
            publisher.ownChanged(true);
        }
    }

    @Override
    public void received(Link link, LinkMessage message) {
        if (link.kind() == LinkKind.NODE_DATA) {
            ConnectedNode node = registry.get(link.peerId());
            if (node != null && node.dataLink() == link) {
                fromDataLink(node, link, message);
                return;
            }
        } else if (link.kind() == LinkKind.NODE) {
            ConnectedNode node = registry.get(link.peerId());
            if (node != null && node.link() == link) {
                fromNode(node, message);
                return;
            }
        } else if (hubLinks.get(link.peerId()) == link) {
            fromHub(link, message);
            return;
        }
        ReferenceCountUtil.release(message);
    }

    @Override
    public boolean relayedAtOnce(Link link, Relay frame) {
        return relayRouter.relayAtOnce(frame, link);
    }

    @Override
    public boolean sideMessageSentAtOnce(Link link, SideMessage message) {
        return router.routeAtOnce(message, link);
    }

    /** The network changed (nodes, hub links, routes): the next links the I/O threads use without the state loop are stale. */
    private void forgetNextLinks() {
        relayRouter.forgetNextLinks();
        router.forgetNextLinks();
    }

    // ---- node requests ----

    private void fromDataLink(ConnectedNode node, Link link, LinkMessage message) {
        if (message instanceof Relay relay && !link.carriesRelays()) {
            relay.release();
            protocolError(link, "a relay frame on the data link of node " + node.id() + " before its DATA_LINK_SWITCH");
        } else if (message instanceof Relay relay) {
            if (!relay.source().equals(node.id())) {
                relay.release();
                protocolError(
                        link,
                        "a relay frame " + relay.direction() + " from node " + relay.source()
                                + " on the data link of node " + node.id());
                return;
            }
            relayRouter.fromLocalNode(relay, link);
        } else {
            ReferenceCountUtil.release(message);
            protocolError(link, message.type() + " on a data link (it carries RELAY frames only)");
        }
    }

    private void fromNode(ConnectedNode node, LinkMessage message) {
        if (message instanceof SideMessage side) {
            if (!side.from().equals(node.id())) {
                protocolError(
                        node.link(), "a side message from node " + side.from() + " on the link of node " + node.id());
                return;
            }
            router.fromLocalNode(node.link(), side, System.nanoTime());
        } else if (message instanceof Relay relay) {
            if (!relay.source().equals(node.id())) {
                relay.release();
                protocolError(
                        node.link(),
                        "a relay frame " + relay.direction() + " from node " + relay.source() + " on the link of node "
                                + node.id());
                return;
            }
            if (!node.link().carriesRelays()) {
                relay.release();
                protocolError(
                        node.link(),
                        "a relay frame on the link of node " + node.id() + " after its DATA_LINK_SWITCH"
                                + " (relayed frames travel on its data link)");
                return;
            }
            relayRouter.fromLocalNode(relay, node.link());
        } else if (message instanceof Lookup lookup) {
            node.link().send(LookupAnswers.answer(lookup, view()));
        } else if (message instanceof NameBind bind) {
            node.link().send(bind(node, bind));
        } else if (message instanceof NameRelease release) {
            node.link().send(release(node, release));
        } else if (message instanceof NodeUpdate update) {
            updateIdentity(node, update);
        } else if (message instanceof DataLinkSwitch) {
            switchToDataLink(node);
        } else {
            protocolError(node.link(), message.type() + " is not something a node sends");
        }
    }

    /**
     * The node's DATA_LINK_SWITCH: it sends its RELAY frames on its data link from now on, and so
     * does this hub, without reordering any connection's frames (docs/protocol.md, "Data links").
     * Node to hub: the data link is read once the frames the node sent on its link before the
     * switch have been sent on (their sending is queued on the link's loop, and so is this).
     * Hub to node: the switch goes back on the link once every I/O loop has finished what it was
     * doing, so every frame routed to the link before the change is queued there before it.
     */
    private void switchToDataLink(ConnectedNode node) {
        Link control = node.link();
        Link data = node.dataLink();
        if (node.relaysOnDataLink() || data == null) {
            protocolError(
                    control,
                    "DATA_LINK_SWITCH from node " + node.id()
                            + (node.relaysOnDataLink() ? " twice" : " without a data link"));
            return;
        }
        if (!data.isOpen()) {
            return; // closing: the node's link goes with it
        }
        node.relayOnDataLink();
        forgetNextLinks();
        control.execute(() -> {
            data.carriesRelays(true);
            data.releaseReadHold();
        });
        LoopBarrier.thenRun(
                control.channel().eventLoop().parent(),
                () -> control.execute(() -> control.send(new DataLinkSwitch())));
    }

    private Result bind(ConnectedNode node, NameBind bind) {
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
            return Result.of(
                    id,
                    ResultStatus.LIMIT,
                    "node " + node.id() + " holds its maximum of " + registry.maxNamesPerNode() + " names");
        }
        if (!budget.takeName(canonical, node.id())) {
            return Result.of(id, ResultStatus.LIMIT, "hub " + name + " cannot describe more names in its gossip");
        }
        registry.bind(node, canonical, bind.virtualPort());
        log.debug("Node {} bound name '{}' to virtual port {}", node.id(), canonical, bind.virtualPort());
        publisher.ownChanged();
        return Result.of(id, ResultStatus.OK, "name '" + canonical + "' bound");
    }

    private Result release(ConnectedNode node, NameRelease release) {
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

    private void updateIdentity(ConnectedNode node, NodeUpdate update) {
        String problem = identityProblem(node.id(), update.identityText());
        if (problem != null) {
            protocolError(node.link(), problem);
            return;
        }
        if (!budget.takeIdentityChange(node.id(), node.identityText(), update.identityText())) {
            node.link().close(RejectCode.LIMIT, "hub " + name + " cannot describe this identity in its gossip");
            return;
        }
        registry.updateIdentity(node, update.identityText());
        publisher.ownChanged();
    }

    private static String identityProblem(NodeId nodeId, String identityText) {
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

    private void protocolError(Link link, String reason) {
        log.info("Closing {}: {}", link, reason);
        link.close(RejectCode.PROTOCOL, reason);
    }

    // ---- gossip ----

    private void fromHub(Link link, LinkMessage message) {
        if (message instanceof Gossip gossip) {
            exchange.onGossip(link, gossip.description());
        } else if (message instanceof GossipDigest digest) {
            exchange.onDigest(link, digest);
        } else if (message instanceof GossipSummary summary) {
            exchange.onSummary(link, summary);
        } else if (message instanceof SideMessage side) {
            router.fromHub(side, link);
        } else if (message instanceof Relay relay) {
            relayRouter.fromHub(relay, link);
        } else {
            protocolError(link, message.type() + " is not something a hub sends");
        }
    }

    /** Every gossip refresh interval: see {@link GossipPublisher#refresh}. */
    void refresh() {
        publisher.refresh();
    }

    private void updateGauges() {
        metrics.nodes(registry.size());
        metrics.hubLinks(hubLinks.size());
        metrics.hubs(directory.size(), routeScheduler.routes().routes().size());
        // Counting names needs the index: done lazily, when a status or metrics scrape asks (see refreshNameGauge).
    }

    /** The name count for the metrics, from the current view (built on demand). */
    void refreshNameGauge() {
        metrics.names(view().index().names().size());
    }

    /** Periodic: forget silent and long-unreachable hubs, and unanswered requests. */
    void expire() {
        long now = System.nanoTime();
        List<HubDescription> expired = directory.expire(now, expiryNanos);
        if (!expired.isEmpty()) {
            log.info(
                    "Forgot hubs {}: unreachable for {} ms",
                    expired.stream().map(HubDescription::hubId).toList(),
                    TimeUnit.NANOSECONDS.toMillis(expiryNanos));
            for (HubDescription gone : expired) {
                routeScheduler.list(gone.hubId(), null);
            }
            routeScheduler.topologyChanged();
            if (dialing != null) {
                for (HubDescription gone : expired) {
                    if (!gone.linkAddresses().isEmpty()) {
                        dialing.gossipedAddressesChanged(gone.hubId(), gone.linkAddresses(), List.of());
                    }
                }
            }
        }
        router.expire(now);
    }

    void dialTick() {
        if (dialing != null && !shuttingDown) {
            dialing.tick(System.nanoTime());
        }
    }

    void shutdown() {
        shuttingDown = true;
        if (dialing != null) {
            dialing.close();
        }
        for (Link link : new ArrayList<>(hubLinks.values())) {
            link.close(RejectCode.SHUTTING_DOWN, "hub " + name + " is shutting down");
        }
        for (ConnectedNode node : new ArrayList<>(registry.nodes())) {
            node.link().close(RejectCode.SHUTTING_DOWN, "hub " + name + " is shutting down");
        }
    }

    // ---- views ----

    /** The network changed: the cached view and the relay's cached next links are stale. */
    private void forgetView() {
        view = null;
        forgetNextLinks();
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

    @Override
    public NodeId selfId() {
        return selfId;
    }

    @Override
    public Link localNodeLink(NodeId node) {
        ConnectedNode connected = registry.get(node);
        return connected == null ? null : connected.link();
    }

    @Override
    public Link localNodeRelayLink(NodeId node) {
        ConnectedNode connected = registry.get(node);
        return connected == null ? null : connected.relayLink();
    }

    @Override
    public NodeId hubOf(NodeId node) {
        NetworkIndex.NodeLocation location = view().index().node(node);
        return location == null ? null : location.hubId();
    }

    @Override
    public HubRoutingTable routes() {
        return routeScheduler.routes();
    }

    @Override
    public Link hubLink(NodeId hub) {
        return hubLinks.get(hub);
    }

    HubRouting routing() {
        Map<NodeId, HubStatus.RouteStatus> routeStatus = new HashMap<>();
        routeScheduler
                .routes()
                .routes()
                .forEach((id, r) -> routeStatus.put(id, new HubStatus.RouteStatus(r.nextHop(), r.hops())));
        return new HubRouting(
                selfId, hubLinks.keySet(), routeStatus, linksChangedNanos, routeScheduler.routesChangedNanos());
    }

    HubStatus status() {
        HubRoutingTable routes = routeScheduler.routes();
        List<HubStatus.HubLinkStatus> links = new ArrayList<>();
        for (Link link : hubLinks.values()) {
            links.add(new HubStatus.HubLinkStatus(
                    link.peerId(),
                    link.dialledByUs(),
                    link.remoteAddress() == null ? null : LinkAddress.format(link.remoteAddress()),
                    link.rttMicros()));
        }
        Map<NodeId, HubStatus.RouteStatus> routeStatus = new TreeMap<>();
        routes.routes().forEach((id, r) -> routeStatus.put(id, new HubStatus.RouteStatus(r.nextHop(), r.hops())));
        Map<NodeId, HubStatus.KnownHubStatus> known = new TreeMap<>();
        for (HubDescription d : directory.descriptions()) {
            known.put(
                    d.hubId(),
                    new HubStatus.KnownHubStatus(
                            d.name(),
                            d.stateNumber(),
                            d.linkAddresses(),
                            d.neighbours(),
                            routes.isReachable(d.hubId()),
                            d.rttMicrosByNeighbour()));
        }
        List<HubStatus.NodeStatus> nodes = new ArrayList<>();
        for (ConnectedNode node : registry.nodes()) {
            nodes.add(new HubStatus.NodeStatus(
                    node.id(),
                    node.identityText(),
                    node.observedAddress() == null ? null : LinkAddress.format(node.observedAddress()),
                    node.link().rttMicros(),
                    Map.copyOf(node.names())));
        }
        Map<String, HubStatus.NameStatus> names = new TreeMap<>();
        view().index()
                .names()
                .forEach((n, h) -> names.put(n, new HubStatus.NameStatus(h.nodeId(), h.hubId(), h.virtualPort())));
        Map<String, Long> errors = new TreeMap<>();
        router.errors().forEach((k, v) -> errors.put(k.name(), v));
        List<HubStatus.IdConflictStatus> conflicts = new ArrayList<>();
        for (IdConflicts.Conflict c : idConflicts.list()) {
            conflicts.add(new HubStatus.IdConflictStatus(
                    c.hubId(),
                    c.seen().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'),
                    c.otherName(),
                    c.otherAddress(),
                    c.otherAdvertised(),
                    c.detail(),
                    c.firstSeenMillis(),
                    c.lastSeenMillis(),
                    c.times()));
        }
        return new HubStatus(
                selfId,
                name,
                state.current(),
                advertised,
                links,
                routeStatus,
                known,
                nodes,
                names,
                router.delivered(),
                router.forwarded(),
                errors,
                idSource,
                conflicts);
    }
}
