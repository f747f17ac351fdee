package io.traverse.hublink;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.traverse.HubDirectory;
import io.traverse.HubLinkStatus;
import io.traverse.HubLinkStatus.State;
import io.traverse.SideChannelException;
import io.traverse.SideChannelException.Failure;
import io.traverse.TraverseConfig;
import io.traverse.TraverseListener;
import io.traverse.discovery.DiscoveredHub;
import io.traverse.discovery.HubFinder;
import io.traverse.hublink.transport.HubDataLink;
import io.traverse.hublink.transport.HubLinkDial;
import io.traverse.hublink.transport.HubLinkException;
import io.traverse.hublink.transport.LazyLinkTls;
import io.traverse.hublink.transport.LinkEventLoops;
import io.traverse.hublink.transport.NodeLinkHandshake;
import io.traverse.hublink.transport.ProxyRoute;
import io.traverse.identity.IpLiterals;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.security.IdentityKey;
import io.traverse.spi.RelayLink;
import io.traverse.wire.DataLinkSwitch;
import io.traverse.wire.LinkAddress;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.LookupResult;
import io.traverse.wire.NodeUpdate;
import io.traverse.wire.Reject;
import io.traverse.wire.Relay;
import io.traverse.wire.Result;
import io.traverse.wire.SideMessage;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's link to the hub network (paper §3.3.2): keeps one authenticated link to one
 * hub, chosen from {@code traverse.hubs} (tried in order, {@link #STAGGER} apart, the first to
 * finish the handshake wins), else found by discovery. When the link breaks it reconnects with
 * jittered exponential backoff ({@link #BACKOFF_INITIAL} doubling to {@link #BACKOFF_MAX}),
 * starting with the hub after the one that failed, so it fails over before it retries; hubs
 * learned from the network (LOOKUP HUBS) join the candidates. The node's id stays the same and
 * its names are registered again on every new link.
 *
 * <p>All state is confined to one event loop of {@link LinkEventLoops}; public methods are
 * thread-safe and never block. Requests to the hub (name binding, lookups) are correlated by
 * id in a bounded table with deadlines.
 *
 * <p>One attempt at one hub (resolving, TCP, CONNECT or a long-poll session, the handshake) is a
 * {@link HubLinkDial}; the session, its data link, the side channel, the directory, names and the
 * relay link are classes of their own. What stays here is the link's state machine, longer than
 * most classes because its fields change together on the loop: the round of attempts, the
 * session and its switch to a data link, the status, the future that waiters are woken by.
 */
public final class HubLink implements Closeable {
    static final Duration STAGGER = Duration.ofMillis(500);
    static final Duration BACKOFF_INITIAL = Duration.ofMillis(500);
    static final Duration BACKOFF_MAX = Duration.ofSeconds(30);
    /** How long to wait before looking for hubs again when discovery found none. */
    static final Duration REDISCOVERY = Duration.ofSeconds(30);
    /** How often a linked node asks for the hubs of the network (its failover candidates). */
    static final Duration RELEARN = Duration.ofSeconds(30);
    /** Requests (name binding, lookups) waiting for the hub's answer, at most. */
    static final int MAX_PENDING_REQUESTS = 256;

    private static final String NO_HUB_CONFIGURED = "traverse.hubs is empty and traverse.discovery is off";
    private static final Logger log = LoggerFactory.getLogger(HubLink.class);

    private final TraverseConfig config;
    private final NodeId nodeId;
    private final Function<InetSocketAddress, NodeIdentity> identityWithHub;
    private final Consumer<InetSocketAddress> onConnected;
    private final TraverseListener events;
    private final LinkAuthentication authentication;
    private final EventLoop loop;
    private final HubCandidates candidates = new HubCandidates();
    private final ReconnectBackoff backoff = new ReconnectBackoff(BACKOFF_INITIAL, BACKOFF_MAX);
    private final PendingRequests<LinkMessage> requests = new PendingRequests<>(MAX_PENDING_REQUESTS, 0xFFFF_FFFFL);
    private final HubNames names;
    private final NodeSideChannel sideChannel;
    private final NodeHubDirectory directory;
    private final NodeRelayLink relayLink;
    /** Opens long-poll sessions, when the link needs one. */
    private final AtomicBoolean released = new AtomicBoolean();
    /** Set once the node's addresses changed at run time: each link then re-announces them when it comes up. */
    private volatile boolean identityChanges;

    private volatile HubLinkStatus status;
    /** What the HTTP proxy last answered a CONNECT to a hub (null: no proxy asked yet). */
    private volatile String proxyAnswer;
    /** How the current link reaches its hub when it is a long-poll session (null: a TCP link, perhaps through CONNECT). */
    private volatile String longPollRoute;
    /** What each attempt to link to a hub needs. */
    private final HubLinkDial.Setup dialSetup;
    /** Completes with the session when the link is up; replaced by a fresh one when it goes down. */
    private volatile CompletableFuture<LinkSession> up = new CompletableFuture<>();
    /** Waits for the link from {@link #whenUp()}: woken by link up, no hub and close; each leaves the set when done. */
    private final LazyLinkTls tls;

    private final Set<CompletableFuture<Void>> upWaiters = ConcurrentHashMap.newKeySet();
    // Confined to the loop:
    private LinkSession session;
    /** Loop only: reports the link up once the hub has switched to the data link too (null when not waiting for that). */
    private Runnable upWhenHubSwitches;

    private Round round;
    private CompletableFuture<List<DiscoveredHub>> discovery;
    private boolean closed;

    private HubLink(
            TraverseConfig config,
            IdentityKey key,
            Function<InetSocketAddress, NodeIdentity> identityWithHub,
            Consumer<InetSocketAddress> onConnected,
            TraverseListener events) {
        this.config = config;
        this.events = events;
        this.nodeId = key.id();
        this.identityWithHub = identityWithHub;
        this.onConnected = onConnected;
        this.authentication = new LinkAuthentication(config.token().orElse(""));
        this.loop = LinkEventLoops.acquire();
        this.sideChannel = new NodeSideChannel(this, nodeId, config.hubTimeout(), loop);
        this.directory = new NodeHubDirectory(this, config.hubTimeout());
        this.names = new HubNames(this, config.hubTimeout());
        this.relayLink = new NodeRelayLink(nodeId, loop);
        // Made beside the first dial (start): the certificate costs a signature, the TLS classes a fresh JVM's time.
        this.tls = new LazyLinkTls(key);
        this.dialSetup = new HubLinkDial.Setup(
                loop,
                config,
                nodeId,
                identityWithHub,
                authentication,
                tls,
                // Loop only: hubs whose CONNECT the proxy refused; they are reached by long-poll sessions from then on.
                new java.util.HashSet<>(),
                answer -> proxyAnswer = answer);
        // Known before the loop first runs: a node with nowhere to link must not look as if it were connecting.
        State initial =
                !config.hubs().isEmpty() ? State.CONNECTING : config.discovery() ? State.DISCOVERING : State.NO_HUB;
        this.status = new HubLinkStatus(
                initial, null, null, null, null, Instant.now(), initial == State.NO_HUB ? NO_HUB_CONFIGURED : null);
    }

    /** The node's TLS under its key, as every link and data link of this node runs it. */
    public io.traverse.security.LinkTls tls() {
        return tls.get();
    }

    /**
     * Starts linking in the background: to the configured hubs, else (if enabled) to hubs found
     * by discovery, else nowhere ({@link State#NO_HUB}); never blocks.
     *
     * @param identityWithHub this node's identity with the given hub as its first hub hint (sent in HELLO)
     * @param onConnected called with the hub address when a link comes up, to adopt that identity
     * @param events told when a link comes up and when it is lost (called on the link's event loop: it must only queue)
     */
    public static HubLink start(
            TraverseConfig config,
            IdentityKey key,
            Function<InetSocketAddress, NodeIdentity> identityWithHub,
            Consumer<InetSocketAddress> onConnected,
            TraverseListener events) {
        HubLink link = new HubLink(config, key, identityWithHub, onConnected, events);
        if (!config.hubs().isEmpty() || config.discovery() || config.encryptKernelSockets()) {
            // A link's TLS, and with traverse.encrypt=all every kernel socket's, needs the contexts soon.
            link.tls.prepareInBackground();
        }
        if (config.token().isEmpty() && (!config.hubs().isEmpty() || config.discovery())) {
            log.warn(
                    "traverse.token is empty: hub links are not authenticated; set the same token on every node and hub");
        }
        link.loop.execute(link::begin);
        return link;
    }

    private void begin() {
        if (!config.hubs().isEmpty()) {
            candidates.addConfigured(config.hubs());
            startRound();
        } else if (config.discovery()) {
            discover();
        } else {
            noHub(NO_HUB_CONFIGURED);
        }
    }

    // ---- discovery ------------------------------------------------------------------------

    private void discover() {
        if (closed) {
            return;
        }
        setStatus(State.DISCOVERING, null, status.lastFailure());
        CompletableFuture<List<DiscoveredHub>> search =
                HubFinder.builder().port(config.discoveryPort()).build().findInBackground();
        discovery = search;
        search.whenComplete((hubs, failure) -> loop.execute(() -> discovered(hubs, failure)));
    }

    private void discovered(List<DiscoveredHub> hubs, Throwable failure) {
        if (closed || session != null) {
            return;
        }
        if (hubs != null && !hubs.isEmpty()) {
            List<InetSocketAddress> addresses = new ArrayList<>();
            hubs.forEach(h -> addresses.addAll(h.linkAddresses()));
            log.info(
                    "Hub discovery found {}",
                    hubs.stream()
                            .map(h -> "'" + h.name() + "' at " + h.linkAddresses())
                            .toList());
            candidates.setDiscovered(addresses);
            startRound();
            return;
        }
        String why = failure != null ? "hub discovery failed: " + failure.getMessage() : "no hub answered discovery";
        candidates.setDiscovered(List.of());
        if (!candidates.isEmpty()) {
            // Hubs learned from the network earlier may still be there.
            log.debug("{}; trying the hubs learned from the network", why);
            startRound();
            return;
        }
        log.debug("{}; looking again in {} s", why, REDISCOVERY.toSeconds());
        noHub(why);
        loop.schedule(this::discover, jitter(REDISCOVERY), TimeUnit.NANOSECONDS);
    }

    /** No hub to link to for now: whoever waits for the link learns it at once. */
    private void noHub(String why) {
        setStatus(State.NO_HUB, null, why);
        CompletableFuture<LinkSession> waiting = up;
        up = new CompletableFuture<>();
        SideChannelException noHub = new SideChannelException(Failure.NO_HUB, "this node has no hub: " + why);
        waiting.completeExceptionally(noHub);
        releaseUpWaiters(noHub);
    }

    /**
     * A round ended with a hub refusing one of this node's settings (wrong token): whoever waits for
     * the link learns why at once, as do later waits until a link comes up (the node keeps trying:
     * the hub's setting may be the one that changes).
     */
    private void refusedForSetting(String why) {
        setStatus(State.CONNECTING, null, why, true);
        CompletableFuture<LinkSession> waiting = up;
        up = new CompletableFuture<>();
        SideChannelException refused = new SideChannelException(Failure.NO_HUB, "no hub link: " + why);
        waiting.completeExceptionally(refused);
        releaseUpWaiters(refused);
    }

    // ---- connecting -----------------------------------------------------------------------

    /** One pass over the candidates: attempts started {@link #STAGGER} apart (at once when one fails). */
    private final class Round {
        final List<InetSocketAddress> order;
        final List<HubLinkDial> dials = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        /** The first refusal of this node's settings by a hub in this round, or null. */
        String settingRefusal;

        int next;
        int running;

        Round(List<InetSocketAddress> order) {
            this.order = order;
        }
    }

    private void startRound() {
        if (closed || session != null || round != null) {
            return;
        }
        if (candidates.isEmpty()) {
            noHub("no hub known");
            return;
        }
        round = new Round(candidates.order());
        setStatus(State.CONNECTING, null, status.lastFailure());
        startNextAttempt(round);
    }

    private void startNextAttempt(Round r) {
        if (r != round || r.next >= r.order.size()) {
            return;
        }
        InetSocketAddress hub = r.order.get(r.next++);
        r.running++;
        HubLinkDial dial = new HubLinkDial(dialSetup, hub);
        r.dials.add(dial);
        // Completed on the loop, inline: see HubLinkDial.
        dial.start().whenComplete((linked, failure) -> {
            if (failure != null) {
                attemptFailed(
                        r, hub, failure.getMessage(), failure instanceof HubLinkException h && h.isRefusalForSetting());
            } else {
                attemptSucceeded(r, hub, linked);
            }
        });
        if (r.next < r.order.size()) {
            loop.schedule(
                    () -> {
                        if (r == round && r.running > 0) {
                            startNextAttempt(r);
                        }
                    },
                    STAGGER.toNanos(),
                    TimeUnit.NANOSECONDS);
        }
    }

    /** How the hub link reaches its hub when it is a long-poll session, e.g. "long-poll session through HTTP proxy 10.0.3.1:3128 …". */
    public Optional<String> longPollRoute() {
        return status.isConnected() ? Optional.ofNullable(longPollRoute) : Optional.empty();
    }

    private void attemptFailed(Round r, InetSocketAddress hub, String why, boolean refusedForSetting) {
        log.debug("Hub link attempt failed: {}", why);
        if (r != round) {
            return;
        }
        r.failures.add(why);
        r.running--;
        if (refusedForSetting && r.settingRefusal == null) {
            r.settingRefusal = why;
        }
        setStatus(State.CONNECTING, null, why);
        if (r.next < r.order.size()) {
            startNextAttempt(r);
        } else if (r.running == 0) {
            round = null;
            candidates.failed(hub);
            if (r.settingRefusal != null) {
                refusedForSetting(r.settingRefusal);
            }
            Duration delay = backoff.next();
            String all = String.join("; ", r.failures);
            // A refusal (by the hub or by the HTTP proxy) is a setting to fix, not weather: say it loudly.
            if (r.failures.stream().anyMatch(f -> f.contains("refused the link") || f.contains("refused CONNECT"))) {
                log.warn("No hub link: {}; retrying in {} ms", all, delay.toMillis());
            } else {
                log.info("No hub link: {}; retrying in {} ms", all, delay.toMillis());
            }
            // Without configured hubs, the hubs of the site may have changed: look again.
            loop.schedule(
                    config.hubs().isEmpty() && config.discovery() ? this::discover : this::startRound,
                    delay.toNanos(),
                    TimeUnit.NANOSECONDS);
        }
    }

    private void attemptSucceeded(Round r, InetSocketAddress hub, HubLinkDial.Linked linked) {
        Channel channel = linked.channel();
        if (r != round || closed || session != null) {
            channel.close();
            return;
        }
        round = null;
        for (HubLinkDial other : r.dials) {
            other.cancel(channel);
        }
        InetSocketAddress resolved = linked.resolved();
        ProxyRoute proxy = linked.proxy();
        NodeLinkHandshake.Outcome outcome = linked.outcome();
        longPollRoute = linked.longPollRoute();
        LinkSession s = new LinkSession(
                channel,
                resolved,
                outcome.hubId(),
                outcome.welcome().observedAddress(),
                Math.min(config.hubKeepalive().toMillis(), outcome.welcome().keepaliveMillis()),
                this::inbound);
        s.handshakeNonces(outcome.clientNonce(), outcome.serverNonce());
        session = s;
        s.start();
        channel.closeFuture().addListener(f -> loop.execute(() -> linkDown(s, hub)));
        backoff.reset();
        relayLink.linkOpened(s);
        // Over a long-poll session relayed frames travel on the link itself: a data link would need a socket to the
        // hub.
        if (!config.hubDataLink() || channel instanceof io.traverse.longpolling.SessionChannel) {
            linkUp(s, hub, resolved, outcome);
            return;
        }
        String identityText = identityWithHub.apply(resolved).toText();
        Thread opener = new Thread(
                () -> {
                    HubDataLink dataLink = null;
                    String why = null;
                    try {
                        dataLink = HubDataLink.open(
                                resolved,
                                proxy,
                                nodeId,
                                outcome.hubId(),
                                identityText,
                                authentication,
                                config.hubDataLinkTls() ? tls.get() : null,
                                outcome.clientNonce(),
                                outcome.serverNonce(),
                                config.hubTimeout().toMillis(),
                                channel.alloc());
                    } catch (IOException | RuntimeException e) {
                        why = e.getMessage();
                    }
                    HubDataLink opened = dataLink;
                    String failure = why;
                    try {
                        loop.execute(() -> dataLinkOpened(s, hub, resolved, outcome, opened, failure));
                    } catch (RejectedExecutionException e) {
                        if (opened != null) {
                            opened.closeUnread();
                        }
                    }
                },
                "traverse-datalink-open");
        opener.setDaemon(true);
        opener.start();
    }

    private void dataLinkOpened(
            LinkSession s,
            InetSocketAddress hub,
            InetSocketAddress resolved,
            NodeLinkHandshake.Outcome outcome,
            HubDataLink dataLink,
            String failure) {
        if (session != s || closed) {
            if (dataLink != null) {
                dataLink.closeUnread();
            }
            return;
        }
        if (dataLink == null) {
            log.info(
                    "No data link to hub {} ({}): relayed connections travel on the hub link",
                    outcome.hubId(),
                    failure);
            linkUp(s, hub, resolved, outcome);
            return;
        }
        // The link counts as up once the hub has switched to the data link too, which it does at
        // once; relayed connections work on the link meanwhile.
        relayLink.switchToDataLink(s, dataLink, dataLinkBroke(s));
        upWhenHubSwitches = () -> linkUp(s, hub, resolved, outcome);
        loop.schedule(
                () -> {
                    if (session == s && upWhenHubSwitches != null) {
                        s.close("hub " + outcome.hubId() + " did not switch to the data link within "
                                + config.hubTimeout().toMillis() + " ms");
                    }
                },
                config.hubTimeout().toNanos(),
                TimeUnit.NANOSECONDS);
    }

    private Consumer<String> dataLinkBroke(LinkSession s) {
        return why -> onLoop(() -> {
            if (session == s) {
                s.close(why);
            }
        });
    }

    /** On the loop: the hub's DATA_LINK_SWITCH on link {@code s}. */
    private void hubSwitched(LinkSession s) {
        if (!relayLink.hubSwitched(s)) {
            return;
        }
        Runnable reportUp = upWhenHubSwitches;
        upWhenHubSwitches = null;
        if (reportUp != null && session == s) {
            reportUp.run();
        }
    }

    private void linkUp(
            LinkSession s, InetSocketAddress hub, InetSocketAddress resolved, NodeLinkHandshake.Outcome outcome) {
        onConnected.accept(resolved);
        if (identityChanges) {
            // The HELLO carried the identity of when the dial began; it may have changed since.
            announceOn(s);
        }
        status = new HubLinkStatus(
                State.CONNECTED,
                hub.getHostString() + ":" + hub.getPort(),
                outcome.hubId(),
                resolved,
                outcome.welcome().observedAddress(),
                Instant.now(),
                status.lastFailure());
        log.info(
                "Linked to hub {} at {} (seen from {}){}",
                outcome.hubId(),
                resolved,
                outcome.welcome().observedAddress(),
                s.channel() instanceof io.traverse.longpolling.SessionChannel && longPollRoute != null
                        ? " by a " + longPollRoute
                        : "");
        events.hubLinkUp(status);
        names.bindAgain(s.hubId());
        learnHubs(s);
        up.complete(s);
        releaseUpWaiters(null);
    }

    private void linkDown(LinkSession s, InetSocketAddress hub) {
        if (session != s) {
            return;
        }
        session = null;
        upWhenHubSwitches = null;
        up = new CompletableFuture<>();
        String why = s.closeReason() != null
                ? s.closeReason()
                : s.channel() instanceof io.traverse.longpolling.SessionChannel sc && sc.failure() != null
                        ? "long-poll session: " + sc.failure()
                        : "hub " + s.hubId() + " at " + s.hubAddress() + " closed the link";
        requests.failAll(() -> new SideChannelException(Failure.LINK_LOST, "the link to the hub broke: " + why));
        sideChannel.linkLost(why);
        relayLink.linkLost("the link to hub " + s.hubId() + " broke: " + why);
        if (closed) {
            return;
        }
        log.warn("Lost the link to hub {} at {}: {}; failing over", s.hubId(), s.hubAddress(), why);
        events.hubLinkLost(s.hubId(), s.hubAddress(), why);
        candidates.failed(hub);
        setStatus(State.CONNECTING, null, why);
        loop.schedule(this::startRound, backoff.next().toNanos(), TimeUnit.NANOSECONDS);
    }

    private void inbound(LinkSession s, LinkMessage message) {
        if (message instanceof Result r) {
            requests.complete(Integer.toUnsignedLong(r.requestId()), r);
        } else if (message instanceof LookupResult r) {
            requests.complete(Integer.toUnsignedLong(r.requestId()), r);
        } else if (message instanceof SideMessage m) {
            sideChannel.inbound(m);
        } else if (message instanceof Relay frame) {
            relayLink.inboundOnLink(frame);
        } else if (message instanceof DataLinkSwitch) {
            hubSwitched(s);
        } else if (message instanceof Reject r) {
            s.close("hub ended the link: " + r.code() + (r.reason().isEmpty() ? "" : " (" + r.reason() + ")"));
        } else {
            log.debug("Ignoring {} from hub {}", message.type(), s.hubId());
        }
    }

    /**
     * The node's identity changed (an external address came or went): sends it to the hub in a
     * NODE_UPDATE if the link is up; a link that comes up later sends it anyway. Never blocks.
     */
    public void announceIdentityChange() {
        identityChanges = true;
        try {
            onLoop(() -> {
                if (session != null && !closed) {
                    announceOn(session);
                }
            });
        } catch (RejectedExecutionException e) {
            log.debug("Identity change not announced: the link's event loop is shut down");
        }
    }

    /** Loop only. */
    private void announceOn(LinkSession s) {
        String text = identityWithHub.apply(s.hubAddress()).toText();
        s.send(new NodeUpdate(text));
        log.debug("Announced identity {} to hub {}", text, s.hubId());
    }

    // ---- requests to the hub --------------------------------------------------------------

    /** The session once the link is up; fails at once with {@code NO_HUB} when there is no hub to wait for. */
    CompletableFuture<LinkSession> session() {
        CompletableFuture<LinkSession> u = up; // before the status: noHub writes the status before it swaps the future
        if (closed) {
            return CompletableFuture.failedFuture(new SideChannelException(Failure.CLOSED, "the node is closed"));
        }
        HubLinkStatus st = status;
        if (st.state() == State.NO_HUB) {
            return CompletableFuture.failedFuture(
                    new SideChannelException(Failure.NO_HUB, "this node has no hub: " + st.lastFailure()));
        }
        if (st.refusedForSetting() && st.state() == State.CONNECTING && !u.isDone()) {
            return CompletableFuture.failedFuture(
                    new SideChannelException(Failure.NO_HUB, "no hub link: " + st.lastFailure()));
        }
        return u;
    }

    /**
     * Sends a request built for a fresh request id and waits for its RESULT or LOOKUP_RESULT,
     * waiting for the link first if it is being set up; all within {@code timeout}.
     */
    CompletableFuture<LinkMessage> exchange(IntFunction<LinkMessage> requestForId, Duration timeout, String what) {
        CompletableFuture<LinkSession> linked = session();
        if (linked.isCompletedExceptionally()) {
            return linked.thenApply(s -> (LinkMessage) null);
        }
        PendingRequests.Pending<LinkMessage> pending = requests.register(
                timeout.toNanos(),
                loop,
                () -> linked.isDone()
                        ? new SocketTimeoutException(
                                what + ": the hub did not answer within " + timeout.toMillis() + " ms")
                        : new SideChannelException(
                                Failure.NO_HUB,
                                what + ": no hub link within " + timeout.toMillis() + " ms (" + status + ")"));
        if (pending == null) {
            return CompletableFuture.failedFuture(new SideChannelException(
                    Failure.OVERLOAD, what + ": " + MAX_PENDING_REQUESTS + " requests to the hub are pending already"));
        }
        long id = pending.id();
        linked.whenComplete((s, failure) -> {
            if (failure != null) {
                requests.fail(id, HubLinkException.unwrap(failure));
            } else {
                s.send(requestForId.apply((int) id)).addListener(f -> {
                    if (!f.isSuccess()) {
                        requests.fail(
                                id,
                                new SideChannelException(
                                        Failure.LINK_LOST,
                                        what + ": sending to the hub failed: "
                                                + f.cause().getMessage()));
                    }
                });
            }
        });
        return pending.answer();
    }

    /**
     * Adds the hubs of the network to the failover candidates, and the linked hub's name to the
     * status; again every {@link #RELEARN} while the link lasts (hubs come and go).
     */
    private void learnHubs(LinkSession s) {
        if (session != s) {
            return;
        }
        directory.hubList().whenComplete((hubs, failure) -> {
            if (failure != null) {
                log.debug(
                        "Could not learn the hubs of the network: {}",
                        HubLinkException.unwrap(failure).getMessage());
            }
        });
        loop.schedule(() -> learnHubs(s), RELEARN.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** A hub list from the network: the failover candidates, and the name of the hub we are linked to. */
    void learned(List<HubDirectory.Hub> hubs) {
        onLoop(() -> {
            List<InetSocketAddress> addresses = new ArrayList<>();
            for (HubDirectory.Hub h : hubs) {
                addresses.addAll(h.linkAddresses());
                HubLinkStatus st = status;
                if (session != null && h.id().equals(session.hubId()) && st.isConnected()) {
                    status = new HubLinkStatus(
                            st.state(),
                            h.name(),
                            st.hubId(),
                            st.hubAddress(),
                            st.observedAddress(),
                            st.since(),
                            st.lastFailure());
                }
            }
            candidates.setLearned(addresses);
        });
    }

    // ---- status ---------------------------------------------------------------------------

    /**
     * What the HTTP proxy answered the last CONNECT to a hub, naming the proxy (for example
     * {@code HTTP proxy 10.0.0.1:3128 (system property traverse.http.proxy) answered 'HTTP/1.0 200 Connection established'});
     * empty when the node has no proxy or has not asked it yet.
     */
    public Optional<String> proxyAnswer() {
        return Optional.ofNullable(proxyAnswer);
    }

    public HubLinkStatus status() {
        return status;
    }

    /**
     * Waits until the link is up or the timeout passes.
     *
     * @return true if linked
     */
    public boolean awaitConnected(Duration timeout) throws InterruptedException {
        try {
            session().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false;
        }
    }

    /** The address the hub saw this node's link come from, while linked. */
    public InetSocketAddress observedAddress() {
        return status.observedAddress();
    }

    public NodeSideChannel sideChannel() {
        return sideChannel;
    }

    public NodeHubDirectory directory() {
        return directory;
    }

    /** RELAY frames over this link, for the routed module. */
    public RelayLink relayLink() {
        return relayLink;
    }

    /** The names this node holds at the hub network. */
    public HubNames names() {
        return names;
    }

    /** True while the link is up. */
    boolean isUp() {
        CompletableFuture<LinkSession> u = up;
        return u.isDone() && !u.isCompletedExceptionally();
    }

    /** True if there is or may soon be a hub link (names are worth asking the hub about). */
    public boolean expectsHub() {
        return status.isExpected();
    }

    /**
     * Completes when the link is up (at once if it is); fails at once, or as soon as it is known,
     * when there is no hub to link to or the node closes. A future of the caller's own: cancelling
     * it stops nobody else's wait.
     */
    public CompletableFuture<Void> whenUp() {
        CompletableFuture<LinkSession> u = up; // before the status: noHub writes the status before it swaps the future
        if (u.isDone() && !u.isCompletedExceptionally()) {
            return CompletableFuture.completedFuture(null);
        }
        // A waiter of its own in a set, not a dependent of the shared future: a wait that is cancelled
        // or times out leaves nothing behind, however many connects come while the hub is down.
        CompletableFuture<Void> waiter = new CompletableFuture<>();
        upWaiters.add(waiter);
        waiter.whenComplete((x, y) -> upWaiters.remove(waiter));
        // Looked at again after joining the set, so that a change just before it is not missed.
        HubLinkStatus st = status;
        CompletableFuture<LinkSession> now = up;
        if (st.state() == State.CLOSED) {
            waiter.completeExceptionally(new SideChannelException(Failure.CLOSED, "the node is closed"));
        } else if (st.state() == State.NO_HUB) {
            waiter.completeExceptionally(
                    new SideChannelException(Failure.NO_HUB, "this node has no hub: " + st.lastFailure()));
        } else if (st.refusedForSetting() && st.state() == State.CONNECTING) {
            waiter.completeExceptionally(new SideChannelException(Failure.NO_HUB, "no hub link: " + st.lastFailure()));
        } else if (now.isDone() && !now.isCompletedExceptionally()) {
            waiter.complete(null);
        }
        return waiter;
    }

    /** Waits from {@link #whenUp()} still pending (for tests: a wait that ended must leave nothing behind). */
    int pendingUpWaiters() {
        return upWaiters.size();
    }

    /** On the loop: wakes every {@link #whenUp()} waiter, with {@code failure} or (null) because the link is up. */
    private void releaseUpWaiters(Throwable failure) {
        for (CompletableFuture<Void> waiter : List.copyOf(upWaiters)) {
            // Out of the set before it completes: a caller woken by it finds nothing of its wait left behind.
            upWaiters.remove(waiter);
            if (failure == null) {
                waiter.complete(null);
            } else {
                waiter.completeExceptionally(failure);
            }
        }
    }

    EventLoop loop() {
        return loop;
    }

    private void setStatus(State state, LinkSession s, String lastFailure) {
        setStatus(state, s, lastFailure, false);
    }

    private void setStatus(State state, LinkSession s, String lastFailure, boolean refusedForSetting) {
        status = new HubLinkStatus(
                state,
                null,
                s == null ? null : s.hubId(),
                s == null ? null : s.hubAddress(),
                s == null ? null : s.observedAddress(),
                Instant.now(),
                lastFailure,
                refusedForSetting);
    }

    private void onLoop(Runnable task) {
        if (loop.inEventLoop()) {
            task.run();
        } else {
            loop.execute(task);
        }
    }

    private static long jitter(Duration d) {
        long n = d.toNanos();
        return n / 2 + java.util.concurrent.ThreadLocalRandom.current().nextLong(n / 2 + 1);
    }

    /** Closes the link and fails everything pending; the hub drops this node and its names. */
    @Override
    public void close() throws IOException {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Runnable shutdown = () -> {
            if (!closed) {
                closed = true;
                if (discovery != null) {
                    discovery.cancel(true);
                }
                if (round != null) {
                    round.dials.forEach(d -> d.cancel(null));
                    round = null;
                }
                if (session != null) {
                    session.close("the node is closing");
                }
                relayLink.linkLost("the node is closing");
                SideChannelException closedFailure = new SideChannelException(Failure.CLOSED, "the node is closed");
                up.completeExceptionally(closedFailure);
                requests.failAll(() -> closedFailure);
                sideChannel.close();
                status = new HubLinkStatus(State.CLOSED, null, null, null, null, Instant.now(), null);
                releaseUpWaiters(closedFailure);
            }
            done.complete(null);
        };
        try {
            if (loop.inEventLoop()) {
                shutdown.run();
            } else {
                loop.execute(shutdown);
                done.get(5, TimeUnit.SECONDS);
            }
        } catch (RejectedExecutionException | ExecutionException | TimeoutException e) {
            log.debug("Closing the hub link: {}", e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (released.compareAndSet(false, true)) {
                LinkEventLoops.release();
            }
        }
    }

    @Override
    public String toString() {
        return "HubLink[" + nodeId + ": " + status + "]";
    }

    /** Parses {@code host:port} link address texts (IP literals resolved, names not), skipping what does not parse. */
    static List<InetSocketAddress> linkAddresses(List<String> texts) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String t : texts) {
            try {
                InetSocketAddress a = LinkAddress.parse(t.trim(), LinkAddress.DEFAULT_PORT);
                // IP literals need no DNS: keep them resolved, so they compare equal to configured ones.
                out.add(
                        IpLiterals.isLiteral(a.getHostString())
                                ? new InetSocketAddress(IpLiterals.parse(a.getHostString()), a.getPort())
                                : a);
            } catch (IllegalArgumentException e) {
                log.debug("Skipping link address '{}': {}", t, e.getMessage());
            }
        }
        return out;
    }
}
