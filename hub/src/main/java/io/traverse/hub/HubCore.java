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
import io.traverse.hub.link.PeerDialing;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.registry.ConnectedNode;
import io.traverse.hub.registry.NameReservations;
import io.traverse.hub.registry.NodeRegistry;
import io.traverse.hub.relay.RelayRouter;
import io.traverse.hub.relay.RelayedConnections;
import io.traverse.hub.routing.HubRoutingTable;
import io.traverse.hub.sidechannel.SideChannelNetwork;
import io.traverse.hub.sidechannel.SideChannelRouter;
import io.traverse.identity.NodeId;
import io.traverse.wire.Gossip;
import io.traverse.wire.GossipDigest;
import io.traverse.wire.GossipSummary;
import io.traverse.wire.HubDescription;
import io.traverse.wire.LinkAddress;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import io.traverse.wire.Relay;
import io.traverse.wire.SideMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hub's coordinator, on one state loop (no locks): links report here through
 * {@link LinkEvents}, and every decision is made here or in a part this wires, each called only
 * from this loop: {@link LinkAdmission} (who gets in), {@link NodeRequests} (what nodes send),
 * {@link NameService} (names and lookups), {@link GossipPublisher} (our own description),
 * {@link GossipExchange} (other hubs' descriptions, anti-entropy), {@link RouteScheduler} (the
 * routes) and {@link IdConflictReports}. Hub links, side messages and relayed frames are handed
 * on here. Nothing here blocks.
 */
final class HubCore implements LinkEvents, SideChannelNetwork {
    private static final Logger log = LoggerFactory.getLogger(HubCore.class);

    private final NodeId selfId;
    private final String name;
    private final List<String> advertised;
    private final String idSource;
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
    private final DescriptionBudget budget;
    private final IdConflictReports idConflicts;
    private final RouteScheduler routeScheduler;
    private final GossipPublisher publisher;
    private final GossipExchange exchange;
    private final NameService names;
    private final LinkAdmission admission;
    private final NodeRequests nodeRequests;
    private PeerDialing dialing;
    private boolean shuttingDown;
    private long linksChangedNanos = System.nanoTime();

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
        this.selfId = selfId;
        this.name = name;
        this.idSource = idSource;
        this.advertised = List.copyOf(advertised);
        this.state = state;
        this.registry = new NodeRegistry(config.maxNodes(), config.maxNamesPerNode());
        this.router = new SideChannelRouter(
                this,
                name,
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
        NameReservations reservations = new NameReservations(config.nameReservation());
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
                reservations,
                directory,
                hubLinks,
                () -> shuttingDown,
                () -> {
                    forgetView();
                    updateGauges();
                });
        this.names = new NameService(
                selfId, name, registry, reservations, directory, routeScheduler, publisher, budget, metrics);
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
        this.admission = new LinkAdmission(
                selfId,
                name,
                config.maxHubLinks(),
                registry,
                directory,
                hubLinks,
                routeScheduler,
                budget,
                idConflicts,
                relayRouter,
                metrics,
                this::forgetNextLinks,
                () -> linksChangedNanos = System.nanoTime());
        this.nodeRequests = new NodeRequests(
                name,
                registry,
                router,
                relayRouter,
                names,
                new LookupQuota(name, config.lookupRatePerNode(), config.lookupBurstPerNode(), metrics),
                budget,
                publisher,
                this::forgetNextLinks);
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
        return admission.admit(link);
    }

    /**
     * This hub dialled an address whose hub refused the link because a hub with this hub's id is
     * that hub itself or linked with it (its reason names it).
     */
    void dialledHubHasOurId(String address, LinkRefusedException refusal) {
        idConflicts.dialledHubHasOurId(address, refusal);
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
                nodeRequests.nodeLeft(node.id());
                log.info("Node {} left{}", node.id(), names.nodeLeft(node));
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
                nodeRequests.fromDataLink(node, link, message);
                return;
            }
        } else if (link.kind() == LinkKind.NODE) {
            ConnectedNode node = registry.get(link.peerId());
            if (node != null && node.link() == link) {
                nodeRequests.fromNode(node, message);
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

    /** Closes a link whose peer broke the protocol, saying why. */
    static void protocolError(Link link, String reason) {
        log.info("Closing {}: {}", link, reason);
        link.close(RejectCode.PROTOCOL, reason);
    }

    // ---- hub links ----

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
        metrics.names(names.names().size());
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
        names.expireReservations(now);
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
        names.forgetView();
        forgetNextLinks();
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
        return names.hubOf(node);
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
        Map<String, HubStatus.NameStatus> nameStatus = new TreeMap<>();
        names.names()
                .forEach((n, h) -> nameStatus.put(n, new HubStatus.NameStatus(h.nodeId(), h.hubId(), h.virtualPort())));
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
                nameStatus,
                router.delivered(),
                router.forwarded(),
                errors,
                idSource,
                conflicts);
    }
}
