package io.traverse.hub;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
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
import io.traverse.hub.routing.HubTopology;
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
import io.traverse.wire.LinkMessageEncoder;
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
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
    private final EventExecutor stateLoop;
    private final NodeRegistry registry;
    /** Hubs known at most: the network is meant for tens to hundreds of sites. */
    static final int MAX_KNOWN_HUBS = 4096;

    private final HubDirectory directory = new HubDirectory(MAX_KNOWN_HUBS);
    /** The routing graph, updated as descriptions and links change; the routes are computed from it. */
    private final HubTopology topology;

    private final Map<NodeId, Link> hubLinks = new LinkedHashMap<>();
    private final SideChannelRouter router;
    private final RelayRouter relayRouter;
    private final HubMetrics metrics;
    private final long expiryNanos;
    private PeerDialing dialing;
    private HubRoutingTable routes;
    private NetworkView view;
    private boolean ownDirty;
    /** While {@link #ownDirty}: when the scheduled publication runs. */
    private long publishDueNanos;
    /** Neighbours whose link's round trip was not measured yet when our description last went out (state loop). */
    private Set<NodeId> publishedUnmeasured = Set.of();
    /** The scheduled publication includes a lost link: it waits for no round trip. */
    private boolean publishUrgent;
    /** New hub links whose first round trip our next description waits for, until when (state loop). */
    private final Map<Link, Long> firstRttDeadlines = new IdentityHashMap<>();
    /**
     * How long a publication waits for the first round trip of a new hub link (its keepalive pings
     * at once): a description without it would be published again with it, one more flood per link.
     */
    static final long FIRST_RTT_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

    private static final long FIRST_RTT_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    private boolean routesDirty;
    private long lastPublishNanos = System.nanoTime() - MIN_PUBLISH_GAP_NANOS;
    /** Changes of this hub's own description within this gap (or longer: {@link #publishGapNanos}) go out as one gossip. */
    static final long MIN_PUBLISH_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    static final long PUBLISH_GAP_PER_LINK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    static final long MAX_PUBLISH_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);
    /** Changes of the graph within this gap (plus {@link #ROUTES_GAP_PER_HUB_NANOS} per known hub) cost one route computation. */
    static final long MIN_ROUTES_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(25);

    static final long ROUTES_GAP_PER_HUB_NANOS = TimeUnit.MICROSECONDS.toNanos(200);
    static final long MAX_ROUTES_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private long lastRoutesNanos = System.nanoTime() - MIN_ROUTES_GAP_NANOS;
    private boolean shuttingDown;
    private long linksChangedNanos = System.nanoTime();
    private long routesChangedNanos = System.nanoTime();
    private final DescriptionBudget budget;
    /** Per hub link, what anti-entropy knows of it (the same keys as {@link #hubLinks}' values). */
    private final Map<Link, LinkSync> syncs = new IdentityHashMap<>();
    /**
     * Summaries that differ from ours this many times in a row from one link get our digest even
     * while gossip keeps changing both (a network forming, or much churn): a repair at least
     * every so many refresh intervals, and at most one digest per link that often meanwhile.
     */
    static final int FORCE_DIGEST_ROUNDS = 6;

    /** Anti-entropy state of one hub link. */
    private static final class LinkSync {
        /** The link's own catch-up digest has arrived; later digests answer our summaries. */
        boolean caughtUp;
        /** The neighbour's last summary, and ours when it arrived (null before the first). */
        GossipSummary theirs;

        GossipSummary ours;
        /** Summaries in a row that differed from ours, since the last digest. */
        int differing;
    }

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
        this.topology = new HubTopology(selfId);
        this.name = name;
        this.idSource = idSource;
        this.advertised = List.copyOf(advertised);
        this.state = state;
        this.stateLoop = stateLoop;
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
        this.routes = topology.routes();
        this.budget = new DescriptionBudget(name, advertised);
        this.idConflicts = new IdConflictReports(selfId, name, this.advertised, idSource, directory, metrics);
    }

    void dialing(PeerDialing peerDialing) {
        this.dialing = peerDialing;
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
            if (routes.isReachable(otherHub)) {
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
            ownChanged();
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
        // What we know, by state number only: the peer answers with the descriptions we lack and we
        // answer its digest likewise (a hub joining a dense network would otherwise receive the whole
        // directory from each of its many new links).
        syncs.put(link, new LinkSync());
        firstRttDeadlines.put(link, System.nanoTime() + FIRST_RTT_WAIT_NANOS);
        sendDigest(link);
        ownLinksChanged();
        ownChanged();
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
                ownChanged();
            }
            return;
        }
        syncs.remove(link);
        firstRttDeadlines.remove(link);
        if (hubLinks.get(link.peerId()) == link) {
            hubLinks.remove(link.peerId());
            forgetNextLinks();
            linksChangedNanos = System.nanoTime();
            log.info("Link with hub {} is gone; routes through it are withdrawn", link.peerId());
            ownLinksChanged();
            ownChanged(true);
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
            ownChanged();
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
        ownChanged();
        return Result.of(id, ResultStatus.OK, "name '" + canonical + "' bound");
    }

    private Result release(ConnectedNode node, NameRelease release) {
        String canonical = NameRules.canonical(release.name());
        ConnectedNode localOwner = registry.ownerOf(canonical);
        if (localOwner == node) {
            registry.release(node, canonical);
            budget.releaseName(canonical, node.id());
            ownChanged();
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
        ownChanged();
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
            onGossip(link, gossip.description());
        } else if (message instanceof GossipDigest digest) {
            onDigest(link, digest);
        } else if (message instanceof GossipSummary summary) {
            onSummary(link, summary);
        } else if (message instanceof SideMessage side) {
            router.fromHub(side, link);
        } else if (message instanceof Relay relay) {
            relayRouter.fromHub(relay, link);
        } else {
            protocolError(link, message.type() + " is not something a hub sends");
        }
    }

    private void onGossip(Link from, HubDescription description) {
        if (description.hubId().equals(selfId)) {
            if (!description.name().equals(name)
                    || !Set.copyOf(description.linkAddresses()).equals(Set.copyOf(advertised))) {
                // Not ours, in any life that shares our name and addresses. (A life before a change of name or
                // addresses
                // would be reported too; its descriptions come back only while ahead of ours, which a clock rarely
                // allows.)
                idConflicts.gossipWithOurId(from, description);
                return;
            }
            // Our own gossip comes back through neighbours at or below our state; above it is an earlier life of this
            // hub.
            if (Long.compareUnsigned(description.stateNumber(), state.current()) > 0) {
                log.info(
                        "Hub network holds state {} of this hub, ahead of ours: moving past it",
                        description.stateNumber());
                state.raiseAbove(description.stateNumber());
                ownChanged();
            }
            return;
        }
        HubDescription previous = directory.get(description.hubId());
        boolean news = directory.offer(description, System.nanoTime());
        metrics.gossip(news);
        if (!news) {
            return;
        }
        // Most news is about links and nodes; the dial targets change only with a hub's addresses, the
        // routes only with its links (a refresh or a node joining changes neither).
        List<String> previousAddresses = previous == null ? List.of() : previous.linkAddresses();
        boolean addressesChanged = !previousAddresses.equals(description.linkAddresses());
        boolean linksChanged =
                topology.list(description.hubId(), directory.neighbourSets().get(description.hubId()));
        // Flood on, except back to the sender and to the hubs this description lists as the origin's
        // neighbours: the origin sent it to each of them itself, as it lists exactly the links it sends
        // on. In a full mesh that is everyone, so a description travels once per hub. Skipping more on
        // a guess that another hub forwards (by this hub's view of the links) missed hubs while a hub
        // joined, at 1,000 hubs, until anti-entropy repaired them seconds later; copies that are no
        // news cost little (dropped on the I/O thread after their id and state number).
        NodeId origin = description.hubId();
        Set<NodeId> toldByOrigin = directory.neighbourSets().getOrDefault(origin, Set.of());
        List<Link> to = new ArrayList<>();
        for (Map.Entry<NodeId, Link> neighbour : hubLinks.entrySet()) {
            NodeId peer = neighbour.getKey();
            if (neighbour.getValue() != from && !peer.equals(origin) && !toldByOrigin.contains(peer)) {
                to.add(neighbour.getValue());
            }
        }
        sendToAll(new Gossip(description), to);
        if (linksChanged) {
            topologyChanged();
        } else {
            forgetView();
        }
        if (addressesChanged && dialing != null) {
            dialing.gossipedAddressesChanged(origin, previousAddresses, description.linkAddresses());
        }
    }

    /** What we hold, by hub id and state number: our own first, then every description held. */
    private void sendDigest(Link link) {
        List<GossipDigest.Entry> digest = new ArrayList<>(directory.size() + 1);
        // Our own entry too: a peer holding a newer state of us (an earlier life with a clock that was ahead) sends it
        // back.
        digest.add(new GossipDigest.Entry(selfId, state.current()));
        directory.stateNumbers().forEach((hub, stateNumber) -> digest.add(new GossipDigest.Entry(hub, stateNumber)));
        link.send(new GossipDigest(digest));
    }

    /**
     * Sends the peer every description it lacks or holds an older state of; its own only when we
     * hold a newer state of it than it has (an earlier life). The first digest of a link is its
     * catch-up: descriptions whose origin lists the peer as a neighbour are left out (the origin
     * sent them itself), and so is ours (published to every new link). A later digest answers
     * summaries that differed, so something was missed: then those go too, but only descriptions
     * of hubs reachable from here, as summaries count them.
     */
    private void onDigest(Link from, GossipDigest digest) {
        LinkSync sync = syncs.get(from);
        boolean catchUp = sync == null || !sync.caughtUp;
        if (sync != null) {
            sync.caughtUp = true;
        }
        Map<NodeId, Long> held = new HashMap<>(digest.entries().size() * 2);
        for (GossipDigest.Entry e : digest.entries()) {
            held.put(e.hubId(), e.stateNumber());
        }
        int sent = 0;
        NodeId peer = from.peerId();
        for (HubDescription known : directory.descriptions()) {
            Long theirs = held.get(known.hubId());
            boolean newer = theirs == null || Long.compareUnsigned(known.stateNumber(), theirs) > 0;
            boolean send;
            if (known.hubId().equals(peer)) {
                send = theirs != null && newer;
            } else {
                // A new link's catch-up sends unreachable hubs too: a hub that just joined may not be reachable yet
                // here (the description of its link's other end is on its way), and the peer missed its flood. An
                // answer to summaries leaves them out, as summaries do (a dead hub held here until its expiry would
                // otherwise go round again; a hub forgotten recently refuses its old states anyway).
                send = newer
                        && (catchUp
                                ? !directory
                                        .neighbourSets()
                                        .getOrDefault(known.hubId(), Set.of())
                                        .contains(peer)
                                : directory.isReachable(known.hubId()));
            }
            if (send) {
                from.send(new Gossip(known));
                sent++;
            }
        }
        Long ownHeld = held.get(selfId);
        if (!catchUp && (ownHeld == null || Long.compareUnsigned(state.current(), ownHeld) > 0) && !ownDirty) {
            from.send(new Gossip(ownDescription()));
            sent++;
        }
        log.debug(
                "Hub {} holds {} descriptions; sent it the {} it lacked ({})",
                peer,
                held.size(),
                sent,
                catchUp ? "new link" : "anti-entropy");
    }

    /**
     * A neighbour's summary of what it holds (anti-entropy, every gossip refresh interval). Equal
     * to ours: nothing to do. Different while either summary changed since the neighbour's last
     * one: gossip is under way and the flood settles it, so we wait (a network forming would
     * otherwise swap whole digests on every link every interval). Different although neither
     * changed for a whole interval: something was missed, and we send our digest, which the
     * neighbour answers with what we lack; what it lacks comes the other way, when our summary
     * reaches it. After {@link #FORCE_DIGEST_ROUNDS} differing summaries in a row the digest goes
     * anyway.
     */
    private void onSummary(Link from, GossipSummary theirs) {
        LinkSync sync = syncs.get(from);
        if (sync == null) {
            return;
        }
        GossipSummary ours = ownSummary();
        boolean stable = theirs.equals(sync.theirs) && ours.equals(sync.ours);
        sync.theirs = theirs;
        sync.ours = ours;
        if (theirs.equals(ours)) {
            sync.differing = 0;
            return;
        }
        sync.differing++;
        if (!stable && sync.differing < FORCE_DIGEST_ROUNDS) {
            return;
        }
        log.debug(
                "Hub {} holds {} descriptions (hash {}), this hub {} ({} summaries in a row differed): sending our digest",
                from.peerId(),
                theirs.descriptions(),
                Long.toHexString(theirs.hash()),
                ours,
                sync.differing);
        sync.differing = 0;
        metrics.digestForSummary();
        sendDigest(from);
    }

    /** Our own description and those of the hubs our routes reach, as a neighbour would summarise them when it agrees. */
    GossipSummary ownSummary() {
        return directory.summary(selfId, state.current());
    }

    /**
     * Our description changed: publish it once the tasks queued now are done, and at most once per
     * {@link #MIN_PUBLISH_GAP_NANOS}, so that a burst of changes (a hub joining a dense network
     * gains a link a millisecond) becomes one gossip instead of one per change.
     */
    private void ownChanged() {
        ownChanged(false);
    }

    /** @param urgent a lost link: published after the minimum gap, as it withdraws routes */
    private void ownChanged(boolean urgent) {
        publishUrgent |= urgent;
        forgetView();
        updateGauges();
        long due = lastPublishNanos + (urgent ? MIN_PUBLISH_GAP_NANOS : publishGapNanos());
        if (ownDirty && due - publishDueNanos >= 0) {
            return;
        }
        ownDirty = true;
        publishDueNanos = due;
        long wait = due - System.nanoTime();
        if (wait <= 0) {
            stateLoop.execute(this::publishOwn);
        } else {
            stateLoop.schedule(this::publishOwn, wait, TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Each publication costs one copy per linked hub, each decoded there: with many links, publish
     * less often ({@link #MIN_PUBLISH_GAP_NANOS}, plus {@link #PUBLISH_GAP_PER_LINK_NANOS} per hub
     * link, at most {@link #MAX_PUBLISH_GAP_NANOS}), so that a network forming around a hundred
     * hubs is not drowned in descriptions outdated by the next link.
     */
    private long publishGapNanos() {
        return Math.min(MAX_PUBLISH_GAP_NANOS, MIN_PUBLISH_GAP_NANOS + PUBLISH_GAP_PER_LINK_NANOS * hubLinks.size());
    }

    private void publishOwn() {
        if (!ownDirty || System.nanoTime() - publishDueNanos < 0) {
            return; // published already by an earlier (urgent) schedule, or superseded by a later one
        }
        if (!publishUrgent && !shuttingDown && awaitingFirstRoundTrips()) {
            stateLoop.schedule(this::publishOwn, FIRST_RTT_POLL_NANOS, TimeUnit.NANOSECONDS);
            return;
        }
        ownDirty = false;
        publishUrgent = false;
        lastPublishNanos = System.nanoTime();
        if (shuttingDown) {
            return;
        }
        state.next();
        HubDescription own = ownDescription();
        Set<NodeId> unmeasured = new HashSet<>();
        for (int i = 0; i < own.neighbours().size(); i++) {
            if (own.neighbourRttMicros().get(i) == HubDescription.RTT_UNKNOWN) {
                unmeasured.add(own.neighbours().get(i));
            }
        }
        publishedUnmeasured = unmeasured;
        sendToAll(new Gossip(own), hubLinks.values());
    }

    /** Whether a new hub link's first round trip is still due (and not overdue). */
    private boolean awaitingFirstRoundTrips() {
        long now = System.nanoTime();
        firstRttDeadlines.entrySet().removeIf(e -> e.getKey().rttMicros() >= 0 || now - e.getValue() > 0);
        return !firstRttDeadlines.isEmpty();
    }

    /** A link our last description listed as not measured yet has its first round trip now. */
    private boolean firstTimesSincePublished() {
        for (NodeId neighbour : publishedUnmeasured) {
            Link link = hubLinks.get(neighbour);
            if (link != null && link.rttMicros() >= 0) {
                return true;
            }
        }
        return false;
    }

    /** Encodes a message once for many links. */
    private static void sendToAll(LinkMessage message, Collection<Link> links) {
        if (links.isEmpty()) {
            return;
        }
        ByteBuf frame = LinkMessageEncoder.frame(message, ByteBufAllocator.DEFAULT);
        try {
            for (Link link : links) {
                link.sendFrame(frame.retainedDuplicate());
            }
        } finally {
            frame.release();
        }
    }

    /**
     * Every gossip refresh interval: anti-entropy, not re-publication. Each hub link gets our
     * {@link GossipSummary} (12 bytes), and a neighbour that holds something else asks for what
     * differs ({@link #onSummary}). Our description goes out only when it changes; the link
     * round-trip times ride along then (a new time alone is no change: republishing for times
     * would flood the network as the old refresh did). One exception, at most once per interval:
     * links that were not measured yet when we last published have their first times now, so
     * every hub's view (the dashboard's map) gets them within an interval of a link being made,
     * not only at our next change.
     */
    void refresh() {
        if (!shuttingDown) {
            if (firstTimesSincePublished()) {
                ownChanged();
            }
            sendToAll(ownSummary(), hubLinks.values());
        }
    }

    private HubDescription ownDescription() {
        List<NodeId> neighbours = new ArrayList<>(hubLinks.keySet());
        neighbours.sort(Comparator.naturalOrder());
        List<HubDescription.NodeEntry> nodes = new ArrayList<>();
        List<HubDescription.NameEntry> names = new ArrayList<>();
        for (ConnectedNode node : registry.nodes()) {
            nodes.add(new HubDescription.NodeEntry(node.id(), node.identityText()));
            node.names().forEach((n, port) -> names.add(new HubDescription.NameEntry(n, node.id(), port)));
        }
        // The times ride along whenever the description goes out (a change, or the refresh): a new time alone is no
        // change.
        List<Long> rtts = new ArrayList<>(neighbours.size());
        for (NodeId neighbour : neighbours) {
            long rtt = hubLinks.get(neighbour).rttMicros();
            rtts.add(rtt < 0 ? HubDescription.RTT_UNKNOWN : Math.min(rtt, HubDescription.RTT_UNKNOWN - 1));
        }
        return new HubDescription(selfId, state.current(), name, advertised, neighbours, nodes, names, rtts);
    }

    /**
     * The graph changed: recompute the routes once the tasks queued now are done, and at most once
     * per {@link #MIN_ROUTES_GAP_NANOS} (longer in larger networks), so that a burst of descriptions (a new link brings the
     * whole directory; in a dense network every change arrives from every neighbour) costs one
     * computation, not one per description. Routes lag the gossip by at most that gap.
     */
    /** This hub's own hub links changed: the routing graph lists them afresh. State loop. */
    private void ownLinksChanged() {
        topology.list(selfId, Set.copyOf(hubLinks.keySet()));
        topologyChanged();
    }

    private void topologyChanged() {
        forgetView();
        if (!routesDirty) {
            routesDirty = true;
            long gap =
                    Math.min(MAX_ROUTES_GAP_NANOS, MIN_ROUTES_GAP_NANOS + ROUTES_GAP_PER_HUB_NANOS * directory.size());
            long wait = lastRoutesNanos + gap - System.nanoTime();
            if (wait <= 0) {
                stateLoop.execute(this::recomputeRoutes);
            } else {
                stateLoop.schedule(this::recomputeRoutes, wait, TimeUnit.NANOSECONDS);
            }
        }
    }

    private void recomputeRoutes() {
        routesDirty = false;
        lastRoutesNanos = System.nanoTime();
        HubRoutingTable previous = routes;
        routes = topology.routes();
        if (!routes.routes().equals(previous.routes())) {
            routesChangedNanos = lastRoutesNanos;
        }
        directory.markReachable(selfId, routes.routes().keySet(), System.nanoTime());
        forgetView();
        updateGauges();
    }

    private void updateGauges() {
        metrics.nodes(registry.size());
        metrics.hubLinks(hubLinks.size());
        metrics.hubs(directory.size(), routes.routes().size());
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
                topology.list(gone.hubId(), null);
            }
            topologyChanged();
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
            List<HubDescription> nearestFirst = new ArrayList<>();
            nearestFirst.add(ownDescription());
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
        return routes;
    }

    @Override
    public Link hubLink(NodeId hub) {
        return hubLinks.get(hub);
    }

    HubRouting routing() {
        Map<NodeId, HubStatus.RouteStatus> routeStatus = new HashMap<>();
        routes.routes().forEach((id, r) -> routeStatus.put(id, new HubStatus.RouteStatus(r.nextHop(), r.hops())));
        return new HubRouting(selfId, hubLinks.keySet(), routeStatus, linksChangedNanos, routesChangedNanos);
    }

    HubStatus status() {
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
