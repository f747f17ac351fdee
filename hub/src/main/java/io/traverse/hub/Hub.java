package io.traverse.hub;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.traverse.hub.discovery.DiscoveryResponder;
import io.traverse.hub.gossip.StateNumber;
import io.traverse.hub.http.HubHttpEndpoint;
import io.traverse.hub.http.HubTraffic;
import io.traverse.hub.http.StatusSource;
import io.traverse.hub.identity.HubKeySource;
import io.traverse.hub.link.HubDialer;
import io.traverse.hub.link.LinkListener;
import io.traverse.hub.link.LinkRate;
import io.traverse.hub.link.LinkSettings;
import io.traverse.hub.link.NettyTransport;
import io.traverse.hub.link.OwnChallenges;
import io.traverse.hub.link.PeerDialing;
import io.traverse.hub.link.PendingConnections;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.identity.AddressClass;
import io.traverse.identity.IpLiterals;
import io.traverse.identity.LocalInterfaces;
import io.traverse.identity.NodeId;
import io.traverse.security.LinkTls;
import io.traverse.ssh.SshGateways;
import io.traverse.wire.LinkAddress;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkLimits;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running hub: the super node of a site (paper §3.3.1–3.3.2). It accepts links from nodes and
 * hubs on one TCP port, dials its configured peers and every hub it learns of, gossips its
 * description, routes side messages and keeps the name registry.
 *
 * <pre>{@code
 * try (Hub hub = Hub.start(HubConfig.builder().port(17000).token(secret).peer("hub2.example.org").build())) {
 *     ...
 * }
 * }</pre>
 *
 * A hub's id is a digest of its Ed25519 key, kept in a state file ({@link HubConfig#keySource()})
 * that is generated at its first start and locked while the hub runs: give tests and throwaway
 * hubs port 0 or {@link HubConfig.Builder#ephemeralKey()} so that they write nothing.
 *
 * Threads: a few Netty I/O event loops (epoll when available) shared by all links, one state
 * loop that owns every decision, and one worker thread for what may take a while and so must
 * stay off the event loops: resolving peers' host names, rendering metrics and status. Simulations
 * of many hubs in one JVM share these instead ({@link SharedHubThreads}).
 */
public final class Hub implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Hub.class);
    private static final long DIAL_TICK_MILLIS = 100;

    private final HubConfig config;
    private final NodeId id;
    private final HubKeySource.Loaded key;
    private final String name;
    private final List<String> advertised;
    private final InetSocketAddress linkAddress;
    private final EventLoopGroup ioLoops;
    private final EventExecutor stateLoop;
    private final ThreadPoolExecutor worker;
    /** False when the threads are {@link SharedHubThreads}: closing this hub leaves them running. */
    private final boolean ownThreads;

    private final LinkListener listener;
    private final HubCore core;
    private final HubMetrics metrics;
    private final HubHttpEndpoint http;
    private final DiscoveryResponder discovery;
    /** Null unless peers are dialled through SSH. */
    private final SshGateways sshGateways;

    private final List<ScheduledFuture<?>> timers = new ArrayList<>();
    private volatile boolean closed;
    /** Set last in the constructor: the dashboard's feed may read it from another thread before. */
    private volatile io.traverse.hub.longpoll.LongPollSessions longPoll;

    private Hub(
            HubConfig config,
            NettyTransport transport,
            EventLoopGroup ioLoops,
            EventExecutor stateLoop,
            ThreadPoolExecutor worker,
            LinkListener listener,
            HubKeySource.Loaded loadedKey,
            boolean ownThreads)
            throws IOException, InterruptedException {
        this.config = config;
        this.ownThreads = ownThreads;
        this.ioLoops = ioLoops;
        this.stateLoop = stateLoop;
        this.worker = worker;
        this.listener = listener;
        this.linkAddress = listener.localAddress();
        this.name = config.name().orElseGet(() -> defaultName(linkAddress.getPort()));
        this.key = loadedKey;
        this.id = loadedKey.id();
        log.info("Hub {}: {}", name, loadedKey.report());
        this.advertised = advertisedAddresses(config, linkAddress);
        StateNumber state = new StateNumber(System.currentTimeMillis());
        LinkAuthentication authentication = new LinkAuthentication(config.token());
        if (authentication.hasEmptyToken()) {
            log.warn(
                    "Hub {} runs without a network token: any node or hub can join (set --token or TRAVERSE_TOKEN)",
                    name);
        }
        this.metrics = new HubMetrics(name);
        LinkSettings settings = new LinkSettings(
                id,
                name,
                advertised,
                state::current,
                authentication,
                config.handshakeTimeout(),
                config.keepaliveInterval(),
                config.maxQueuedMessagesPerLink(),
                metrics::refused,
                new OwnChallenges(),
                new LinkRate(config.linkRate(), config.linkBurst(), () -> metrics.overloaded(AdmissionLimit.LINK_RATE)),
                LinkTls.of(loadedKey.key()).accepting());
        this.core = new HubCore(config, id, name, "key " + config.keySource(), advertised, state, stateLoop, metrics);
        this.sshGateways = config.sshTunnels().isEmpty() ? null : new SshGateways(config.sshTunnels());
        HubDialer dialer = new HubDialer(transport, ioLoops, settings, core, stateLoop, worker, sshGateways);
        PeerDialing dialing = new PeerDialing(
                id,
                dialer,
                stateLoop,
                config.redialMin(),
                config.redialMax(),
                peer -> core.hubLink(peer) != null,
                core::dialledHubHasOurId);
        config.peers().forEach(dialing::addConfiguredPeer);
        core.dialing(dialing);
        timers.add(stateLoop.scheduleAtFixedRate(core::dialTick, 0, DIAL_TICK_MILLIS, TimeUnit.MILLISECONDS));
        long refresh = config.gossipRefreshInterval().toMillis();
        timers.add(stateLoop.scheduleAtFixedRate(core::refresh, refresh, refresh, TimeUnit.MILLISECONDS));
        long sweep = Math.max(50, Math.min(1000, config.hubExpiry().toMillis() / 4));
        timers.add(stateLoop.scheduleAtFixedRate(core::expire, sweep, sweep, TimeUnit.MILLISECONDS));
        this.http = config.httpPort() < 0
                ? null
                : bindHttp(
                        config,
                        transport,
                        ioLoops,
                        new InetSocketAddress(linkAddress.getAddress(), config.httpPort()),
                        worker);
        this.discovery = config.discoveryPort() < 0 ? null : startDiscovery(config.discoveryPort());
        this.longPoll = new io.traverse.hub.longpoll.LongPollSessions(
                config.longPollLimits(), ioLoops, listener::installLink, LinkListener.WATER_MARK);
        listener.serveHttp(longPoll::installHttp);
        listener.limits(
                new PendingConnections(
                        "link port",
                        AdmissionLimit.HANDSHAKES,
                        config.maxHandshakes(),
                        AdmissionLimit.HANDSHAKES_PER_ADDRESS,
                        config.maxHandshakesPerAddress(),
                        metrics::overloaded),
                config.httpRequestTimeout());
        listener.startAccepting(settings, core, stateLoop);
        log.info(
                "Hub {} (id {}) listening on {} ({}), advertised {}, peers {}, HTTP {}",
                name,
                id,
                linkAddress,
                transport,
                advertised.isEmpty() ? "none: dials out only" : advertised,
                config.peers(),
                http == null ? "off" : http.localAddress() + " (/metrics, /status, /dashboard)");
    }

    private HubHttpEndpoint bindHttp(
            HubConfig config,
            NettyTransport transport,
            EventLoopGroup ioLoops,
            InetSocketAddress address,
            Executor worker)
            throws IOException, InterruptedException {
        try {
            PendingConnections pending = new PendingConnections(
                    "HTTP port", AdmissionLimit.HTTP_REQUESTS, config.maxHttpRequests(), null, 0, metrics::overloaded);
            return HubHttpEndpoint.bind(
                    transport, ioLoops, address, statusSource(), worker, pending, config.httpRequestTimeout());
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) { // Netty rethrows the bind's IOException undeclared
            throw cannotListen("HTTP", address, e);
        }
    }

    /** Says which port of the hub could not be bound, where, and why, in words an operator can act on. */
    private static IOException cannotListen(String which, InetSocketAddress address, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        String why = String.valueOf(e.getMessage());
        String hint = why.contains("Address already in use")
                ? ": address already in use (another hub or program holds it; choose another port)"
                : why.contains("Cannot assign requested address")
                        ? ": no interface of this host has that address"
                        : why.contains("Permission denied")
                                ? ": permission denied (ports below 1024 need privileges)"
                                : ": " + why;
        IOException failure = new java.net.BindException("cannot listen for " + which + " connections on "
                + address.getAddress().getHostAddress() + ":" + address.getPort() + hint);
        failure.initCause(e);
        return failure;
    }

    /** Answers discovery probes; a hub whose UDP port is unavailable still works, it is just not found that way. */
    private DiscoveryResponder startDiscovery(int udpPort) {
        // Answers carry IP addresses; advertised host names are left to DNS and configuration.
        List<InetSocketAddress> answer = new ArrayList<>();
        for (String address : advertised) {
            InetSocketAddress parsed = LinkAddress.parse(address, linkAddress.getPort());
            if (IpLiterals.isLiteral(parsed.getHostString())) {
                answer.add(new InetSocketAddress(IpLiterals.parse(parsed.getHostString()), parsed.getPort()));
            }
        }
        DiscoveryResponder responder =
                DiscoveryResponder.builder(name, () -> answer).port(udpPort).build();
        try {
            responder.start();
            return responder;
        } catch (IOException e) {
            log.warn(
                    "Hub {} does not answer discovery probes: UDP port {} unavailable ({})",
                    name,
                    udpPort,
                    e.getMessage());
            responder.close();
            return null;
        }
    }

    /** Where discovery probes are answered, unless off. */
    public Optional<InetSocketAddress> discoveryAddress() {
        return discovery == null ? Optional.empty() : Optional.of(discovery.localAddress());
    }

    /**
     * Binds the link port and starts the hub.
     *
     * @throws IOException if the port cannot be bound or the bind address is unknown
     */
    public static Hub start(HubConfig config) throws IOException {
        NettyTransport transport = NettyTransport.best();
        EventLoopGroup ioLoops = transport.newEventLoopGroup(config.ioThreads(), "traverse-hub-io");
        EventExecutor stateLoop = new DefaultEventExecutor(new DefaultThreadFactory("traverse-hub-state", true));
        ThreadPoolExecutor worker = new ThreadPoolExecutor(
                1,
                1,
                30,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(256),
                new DefaultThreadFactory("traverse-hub-worker", true),
                new ThreadPoolExecutor.AbortPolicy());
        worker.allowCoreThreadTimeOut(true);
        return start(config, transport, ioLoops, stateLoop, worker, true);
    }

    /**
     * Binds the link port and starts the hub on threads it shares with other hubs of this JVM
     * (simulations of large networks; see {@link SharedHubThreads}). {@link HubConfig#ioThreads()}
     * does not apply; closing the hub leaves the shared threads running.
     *
     * @throws IOException if the port cannot be bound or the bind address is unknown
     */
    public static Hub start(HubConfig config, SharedHubThreads threads) throws IOException {
        return start(config, threads.transport(), threads.ioLoops(), threads.nextStateLoop(), threads.worker(), false);
    }

    private static Hub start(
            HubConfig config,
            NettyTransport transport,
            EventLoopGroup ioLoops,
            EventExecutor stateLoop,
            ThreadPoolExecutor worker,
            boolean ownThreads)
            throws IOException {
        try {
            InetAddress bind = InetAddress.getByName(config.bindAddress());
            InetSocketAddress linkPort = new InetSocketAddress(bind, config.port());
            LinkListener listener;
            try {
                listener = LinkListener.bind(transport, ioLoops, linkPort);
            } catch (Exception e) { // Netty rethrows the bind's IOException undeclared
                throw cannotListen("link", linkPort, e);
            }
            HubKeySource.Loaded key;
            try {
                key = config.keySource().load();
            } catch (IOException | RuntimeException e) {
                listener.close();
                throw e;
            }
            try {
                return new Hub(config, transport, ioLoops, stateLoop, worker, listener, key, ownThreads);
            } catch (IOException | RuntimeException | InterruptedException e) {
                listener.close();
                release(key);
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            if (ownThreads) {
                shutdown(ioLoops, stateLoop, worker);
            }
            throw e instanceof IOException io ? io : new IOException("hub could not start: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (ownThreads) {
                shutdown(ioLoops, stateLoop, worker);
            }
            throw new IOException("interrupted while binding", e);
        }
    }

    /** Lets the next hub on this key file start. */
    private static void release(HubKeySource.Loaded key) {
        try {
            key.release().close();
        } catch (Exception e) {
            log.warn("Could not release the lock on the hub's key file: {}", e.toString());
        }
    }

    private static String defaultName(int port) {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                host = "hub";
            }
        }
        String clean = host.replaceAll("[^A-Za-z0-9._-]", "-");
        String name = clean + ":" + port;
        return name.length() > LinkLimits.MAX_HUB_NAME ? name.substring(name.length() - LinkLimits.MAX_HUB_NAME) : name;
    }

    private static List<String> advertisedAddresses(HubConfig config, InetSocketAddress bound) throws SocketException {
        if (config.advertisedAddresses().isPresent()) {
            return config.advertisedAddresses().get();
        }
        List<InetAddress> addresses = LocalInterfaces.forBindAddress(bound.getAddress(), LocalInterfaces.scan())
                .advertisable();
        List<InetAddress> chosen = new ArrayList<>();
        for (InetAddress a : addresses) {
            if (!(bound.getAddress().isAnyLocalAddress() && AddressClass.of(a) == AddressClass.LOOPBACK)) {
                chosen.add(a);
            }
        }
        if (chosen.isEmpty()) {
            chosen = addresses;
        }
        List<String> out = new ArrayList<>();
        for (InetAddress a : chosen) {
            if (out.size() < LinkLimits.MAX_LINK_ADDRESSES) {
                out.add(LinkAddress.format(new InetSocketAddress(a, bound.getPort())));
            }
        }
        return out;
    }

    public NodeId id() {
        return id;
    }

    public String name() {
        return name;
    }

    /** The address and port the hub listens on (the real port when configured with 0). */
    public InetSocketAddress linkAddress() {
        return linkAddress;
    }

    /** The addresses this hub tells other hubs to dial it at (empty for a hub that only dials out). */
    public List<String> advertisedAddresses() {
        return advertised;
    }

    public HubConfig config() {
        return config;
    }

    /** Where the HTTP endpoint listens, unless disabled. */
    public Optional<InetSocketAddress> httpAddress() {
        return http == null ? Optional.empty() : Optional.of(http.localAddress());
    }

    /** The hub's metrics (Micrometer, Prometheus registry). */
    public HubMetrics metrics() {
        return metrics;
    }

    private StatusSource statusSource() {
        return new StatusSource() {
            @Override
            public CompletionStage<HubStatus> status() {
                CompletableFuture<HubStatus> result = new CompletableFuture<>();
                stateLoop.submit(core::status).addListener(f -> {
                    if (f.isSuccess()) {
                        result.complete((HubStatus) f.getNow());
                    } else {
                        result.completeExceptionally(f.cause());
                    }
                });
                return result;
            }

            @Override
            public String metrics() {
                // Counting names needs the network index, built on demand: counted for the scrape, not on a timer.
                try {
                    stateLoop.submit(core::refreshNameGauge).await(1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return metrics.scrape();
            }

            @Override
            public HubTraffic traffic() {
                io.traverse.hub.longpoll.LongPollSessions sessions = longPoll; // null while the hub is still starting
                return new HubTraffic(
                        metrics.relayBytesDelivered(),
                        metrics.relayBytesForwarded(),
                        metrics.connectionSetUps(),
                        sessions == null ? 0 : sessions.openSessions());
            }
        };
    }

    /**
     * A snapshot of the hub's state, taken on its state loop. Waits at most 5 seconds; do not
     * call from a Netty event loop.
     *
     * @throws IllegalStateException if the hub is closed or does not answer in time
     */
    public HubStatus status() {
        return onStateLoop(core::status, "its status");
    }

    /**
     * The hub's links and routes, taken on its state loop: like {@link #status()}, but cheap in
     * large networks. Waits at most 5 seconds; do not call from a Netty event loop.
     *
     * @throws IllegalStateException if the hub is closed or does not answer in time
     */
    public HubRouting routing() {
        return onStateLoop(core::routing, "its routes");
    }

    private <T> T onStateLoop(Callable<T> task, String what) {
        if (closed) {
            throw new IllegalStateException("hub " + name + " is closed");
        }
        if (stateLoop.inEventLoop()) {
            throw new IllegalStateException("waiting for " + what + " on the hub's own loop would never end");
        }
        try {
            return stateLoop.submit(task).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("hub " + name + " did not report " + what, e);
        }
    }

    /** Long-poll sessions open now. */
    public int longPollSessions() {
        return longPoll.openSessions();
    }

    /** Tells every peer the hub is shutting down, closes all links and stops the threads. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        log.info("Hub {} shutting down", name);
        timers.forEach(t -> t.cancel(false));
        try {
            stateLoop.submit(core::shutdown).await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        listener.close();
        longPoll.close();
        if (discovery != null) {
            discovery.close();
        }
        if (http != null) {
            http.close();
        }
        if (sshGateways != null) {
            sshGateways.close();
        }
        if (ownThreads) {
            shutdown(ioLoops, stateLoop, worker);
        }
        release(key);
        log.info("Hub {} stopped", name);
    }

    private static void shutdown(EventLoopGroup ioLoops, EventExecutor stateLoop, ThreadPoolExecutor worker) {
        // A short quiet period lets the REJECT SHUTTING_DOWN frames go out before the sockets close.
        ioLoops.shutdownGracefully(50, 2000, TimeUnit.MILLISECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
        stateLoop.shutdownGracefully(0, 1000, TimeUnit.MILLISECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
        worker.shutdownNow();
    }

    @Override
    public String toString() {
        return "Hub[" + name + ", " + id + ", " + linkAddress + "]";
    }
}
