package io.traverse.node;

import io.traverse.ConnectionInfo;
import io.traverse.ConnectionStatistics;
import io.traverse.ModuleStatistics;
import io.traverse.Protection;
import io.traverse.TraverseConfig;
import io.traverse.TraverseConfigException;
import io.traverse.TraverseListener;
import io.traverse.VirtualSocketAddress;
import io.traverse.connect.HubModuleCache;
import io.traverse.connect.KernelTls;
import io.traverse.connect.ModuleCounters;
import io.traverse.connect.ModuleRacer;
import io.traverse.connect.PathUpgradeProbes;
import io.traverse.connect.PlainConnector;
import io.traverse.connect.SocketAttempt;
import io.traverse.connect.StaggeredRace;
import io.traverse.firewall.SimulatedFirewall;
import io.traverse.hublink.HubLink;
import io.traverse.identity.LocalInterfaces;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.identity.RegisteredName;
import io.traverse.listen.AcceptQueue;
import io.traverse.listen.HandshakeJudge;
import io.traverse.listen.NodeListener;
import io.traverse.listen.ReverseRendezvous;
import io.traverse.listen.VirtualPortTable;
import io.traverse.logging.PeerWarnings;
import io.traverse.protocol.Deadline;
import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.IdentityHandshake.Answer;
import io.traverse.security.IdentityKey;
import io.traverse.security.KeyFile;
import io.traverse.security.PeerSessions;
import io.traverse.spi.AdvertisedExternal;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.HandshakeDialer;
import io.traverse.spi.HandshakeDialerProvider;
import io.traverse.spi.InboundConnections;
import io.traverse.spi.MeasuredConnection;
import io.traverse.spi.ModuleContext;
import java.io.Closeable;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine of one Traverse node: its identity, its listening port with virtual ports, its
 * modules and the racer that uses them. {@code io.traverse.Traverse} is the public face.
 */
public final class LocalNode implements Closeable, HandshakeJudge {
    private static final Logger log = LoggerFactory.getLogger(LocalNode.class);
    /** Refused key proofs: any client can send one, and a flood of them must not flood the log. */
    private final PeerWarnings refusedProofs = new PeerWarnings(log);
    /** Staggered attempts beyond the first each take a thread for their duration; this many at most. */
    private static final int MAX_ATTEMPT_THREADS = 256;

    private final TraverseConfig config;
    private final NodeListener listener;
    private final CurrentIdentity identity;
    private final LocalInterfaces reachableInterfaces;
    private final VirtualPortTable ports = new VirtualPortTable();
    private final ReverseRendezvous rendezvous = new ReverseRendezvous(this::selfId);
    private final ExecutorService attemptExecutor;
    private final HandshakeDialer handshakeDialer;
    private final PlainConnector plainConnector;
    private final HostNameResolver names;
    private final ModuleCounters counters = new ModuleCounters();
    private final HubModuleCache cache;
    private final List<ConnectionModule> modules;
    private final ModuleRacer racer;
    private final SocketRecords<ConnectionInfo> connectionInfo = new SocketRecords<>();
    /** Sockets a module put in a backlog, by the module's name, until the application accepts them. */
    private final SocketRecords<String> deliveredBy = new SocketRecords<>();

    private final InboundConnections inboundConnections;
    /** TLS on kernel sockets whose handshake agreed on it ({@code traverse.encrypt=all} on either node). */
    private final KernelTls kernelTls;

    private final NodeEvents events;
    private final Set<Closeable> serverSockets = ConcurrentHashMap.newKeySet();
    private final HubLink hubLink;
    /** Keys agreed end to end with peers, kept per peer (relayed connections are sealed with them). */
    private final PeerSessions peerSessions;

    private volatile boolean closed;

    private LocalNode(TraverseConfig config) throws IOException {
        this.config = config;
        IdentityKey key = loadKey(config);
        NodeId id = key.id();
        this.peerSessions = new PeerSessions(key, new java.security.SecureRandom());
        peerSessions.prepareInBackground(); // a first contact's handshake then finds the code loaded
        String threadPrefix = "traverse-" + id.shortForm();
        this.kernelTls = new KernelTls(
                this::linkTls,
                (int) Math.min(Integer.MAX_VALUE, config.handshakeTimeout().toMillis()),
                config.maxPendingHandshakes());
        this.inboundConnections = new NodeInboundConnections(rendezvous, ports, deliveredBy, kernelTls);
        InetAddress bind = config.bindAddress().orElse(null);
        LocalInterfaces all = LocalInterfaces.scan();
        this.reachableInterfaces = bind == null ? all : LocalInterfaces.forBindAddress(bind, all);
        this.listener = NodeListener.bind(
                bind,
                config.portRange(),
                this,
                new SimulatedFirewall(config.firewall()),
                this::identityOrNull,
                config.handshakeTimeout(),
                config.maxPendingHandshakes(),
                kernelTls,
                threadPrefix);
        HubLink startedLink = null;
        try {
            this.identity =
                    new CurrentIdentity(CurrentIdentity.atStart(id, listener.port(), reachableInterfaces, config));
            this.events = new NodeEvents(threadPrefix + "-events");
            // The hub link before the modules: they register side-channel services on it.
            startedLink = HubLink.start(config, key, identity::withHub, identity::linkedTo, events);
            this.hubLink = startedLink;
            this.attemptExecutor = new ThreadPoolExecutor(
                    0,
                    MAX_ATTEMPT_THREADS,
                    30,
                    TimeUnit.SECONDS,
                    new SynchronousQueue<>(),
                    daemonThreads(threadPrefix + "-connect"));
            long stagger = config.connectStagger().toNanos();
            this.handshakeDialer = HandshakeDialers.load(new HandshakeDialerProvider.Setup(
                    identity::current,
                    reachableInterfaces,
                    all,
                    bind,
                    stagger,
                    attemptExecutor,
                    httpOnlyWayOut(config),
                    peerSessions,
                    kernelTls,
                    config.encryptKernelSockets()));
            this.plainConnector = new PlainConnector(stagger, attemptExecutor);
            this.names = new HostNameResolver(
                    HostNameResolver.Dns.SYSTEM, hubNames(), config.hubTimeout(), daemonThreads(threadPrefix + "-dns"));
            this.cache = new HubModuleCache(config.cacheTtl().toNanos());
            this.modules = loadModules();
            PathUpgradeProbes probes =
                    new PathUpgradeProbes(cache, events, stagger, config.connectTimeout(), attemptExecutor);
            this.racer = new ModuleRacer(modules, cache, counters, stagger, attemptExecutor, probes);
        } catch (IOException | RuntimeException e) {
            if (startedLink != null) {
                startedLink.close();
            }
            listener.close();
            throw e;
        }
        listener.start();
        log.info(
                "Traverse node {} listening on port {}, modules {}",
                identity.current(),
                listener.port(),
                racer.moduleNames());
    }

    /** Binds the listening port, scans interfaces, loads modules, and starts serving. */
    public static LocalNode start(TraverseConfig config) throws IOException {
        return new LocalNode(config);
    }

    /**
     * The HTTP proxy that is this node's only way out: set, and the hub link goes through
     * it. Direct dials to addresses it applies to then cannot work and are not tried.
     */
    /** The node's key: kept in {@code traverse.key} when set, else new (and so a new id) at every start. */
    private static IdentityKey loadKey(TraverseConfig config) throws IOException {
        if (config.keyFile().isEmpty()) {
            return IdentityKey.generate();
        }
        KeyFile.Loaded loaded = KeyFile.loadOrCreate(config.keyFile().get(), "node");
        log.info("Node {}", loaded.report());
        return loaded.key();
    }

    private static io.traverse.config.HttpProxy httpOnlyWayOut(TraverseConfig config) {
        return config.httpProxy()
                .filter(p -> config.hubs().stream().anyMatch(h -> p.appliesTo(h.getHostString())))
                .orElse(null);
    }

    /** Adds or removes an advertised external address, then tells the hub (see {@link ModuleContext#advertiseExternal}). */
    private void changeAdvertised(InetSocketAddress external, boolean add) {
        if (!identity.changeAdvertised(external, add)) {
            return;
        }
        log.info("{} external address {}", add ? "Advertising" : "No longer advertising", external);
        hubLink.announceIdentityChange();
    }

    private AdvertisedExternal advertise(InetSocketAddress external) {
        // Checked and normalised as every identity address is (IP literal, port 1-65535).
        InetSocketAddress checked =
                NodeIdentity.builder().external(external).build().externals().get(0);
        changeAdvertised(checked, true);
        java.util.concurrent.atomic.AtomicBoolean withdrawn = new java.util.concurrent.atomic.AtomicBoolean();
        return new AdvertisedExternal() {
            @Override
            public InetSocketAddress address() {
                return checked;
            }

            @Override
            public void withdraw() {
                if (withdrawn.compareAndSet(false, true)) {
                    changeAdvertised(checked, false);
                }
            }
        };
    }

    private List<ConnectionModule> loadModules() throws IOException {
        Map<String, ConnectionModuleProvider> available = new LinkedHashMap<>();
        for (ConnectionModuleProvider p :
                ServiceLoader.load(ConnectionModuleProvider.class, LocalNode.class.getClassLoader())) {
            if (available.putIfAbsent(p.name(), p) != null) {
                log.warn(
                        "Two connection modules are named '{}': {} and {}; using the first",
                        p.name(),
                        available.get(p.name()).getClass().getName(),
                        p.getClass().getName());
            }
        }
        ModuleContext context = new NodeModuleContext(
                config,
                identity::current,
                reachableInterfaces,
                handshakeDialer,
                hubLink,
                inboundConnections,
                events,
                listener,
                this::advertise,
                Optional.ofNullable(httpOnlyWayOut(config)),
                peerSessions,
                kernelTls);
        List<ConnectionModule> created = new ArrayList<>();
        for (String name : config.modules()) {
            ConnectionModuleProvider provider = available.get(name);
            if (provider == null) {
                if (config.modulesConfigured()) {
                    created.forEach(ConnectionModule::close);
                    throw new TraverseConfigException("traverse.modules names '" + name
                            + "', but no such module is on the class path (available: "
                            + String.join(", ", available.keySet()) + ")");
                }
                log.debug("Module {} is not on the class path; skipping it", name);
                continue;
            }
            try {
                created.add(provider.create(context));
            } catch (RuntimeException e) {
                // Those already made may hold threads, shutdown hooks, router mappings: the node is not starting.
                created.forEach(ConnectionModule::close);
                throw e;
            }
        }
        if (created.isEmpty()) {
            log.warn(
                    "No connection module is available (traverse.modules={}, on the class path: {}); "
                            + "only plain TCP destinations can be reached",
                    config.modules(),
                    available.keySet());
        }
        return created;
    }

    public NodeIdentity identity() {
        return identity.current();
    }

    /** For the listener, which gets it before the identity is known (it asks only once started). */
    private NodeIdentity identityOrNull() {
        CurrentIdentity current = identity;
        return current == null ? null : current.current();
    }

    public TraverseConfig config() {
        return config;
    }

    public List<String> moduleNames() {
        return racer.moduleNames();
    }

    /** The link to the hub network (its status, side channel, lookups, names). */
    public HubLink hubLink() {
        return hubLink;
    }

    public LocalInterfaces reachableInterfaces() {
        return reachableInterfaces;
    }

    public int listeningPort() {
        return listener.port();
    }

    public List<ModuleStatistics> statistics() {
        return counters.snapshot();
    }

    public Optional<ConnectionInfo> connectionInfo(Socket socket) {
        return Optional.ofNullable(connectionInfo.get(socket));
    }

    /** How {@code socket} was made, and its byte counts if a module measures them ({@link MeasuredConnection}). */
    public Optional<ConnectionStatistics> connectionStatistics(Socket socket) {
        return connectionInfo(socket).map(info -> {
            if (socket instanceof MeasuredConnection measured) {
                return new ConnectionStatistics(
                        info, OptionalLong.of(measured.bytesIn()), OptionalLong.of(measured.bytesOut()));
            }
            return new ConnectionStatistics(info, OptionalLong.empty(), OptionalLong.empty());
        });
    }

    private static int hubsOf(Socket socket) {
        return socket instanceof MeasuredConnection measured ? measured.hubsTraversed() : 0;
    }

    private static Protection protectionOf(Socket socket) {
        if (socket instanceof javax.net.ssl.SSLSocket) {
            return Protection.TLS;
        }
        return socket instanceof MeasuredConnection measured && measured.sealed() ? Protection.SEALED : Protection.NONE;
    }

    public void addListener(TraverseListener listener) {
        events.add(listener);
    }

    public void removeListener(TraverseListener listener) {
        events.remove(listener);
    }

    /**
     * The application accepted {@code socket} on {@code local}: remembers how it was made (by the
     * module that delivered it, else by the listener's handshake: direct) and tells the listeners.
     */
    public void accepted(Socket socket, VirtualSocketAddress local) {
        String module = deliveredBy.remove(socket);
        ConnectionInfo info = new ConnectionInfo(
                local,
                module != null ? module : "direct",
                Duration.ZERO,
                false,
                hubsOf(socket),
                true,
                protectionOf(socket));
        connectionInfo.put(socket, info);
        events.connected(info);
    }

    /**
     * Connects to any destination the socket factory accepts (see {@code TraverseSocketFactory}).
     *
     * @param timeoutMillis 0: the configured {@code traverse.connect.timeout}
     */
    public Socket connect(
            SocketAddress destination, int timeoutMillis, ConnectOptions options, Cancellation cancellation)
            throws IOException {
        try {
            return connectOrFail(destination, timeoutMillis, options, cancellation);
        } catch (IOException e) {
            events.connectFailed(destination, e);
            throw e;
        }
    }

    private Socket connectOrFail(
            SocketAddress destination, int timeoutMillis, ConnectOptions options, Cancellation cancellation)
            throws IOException {
        ensureOpen();
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("connect: timeout can't be negative");
        }
        Deadline deadline =
                Deadline.after(timeoutMillis > 0 ? Duration.ofMillis(timeoutMillis) : config.connectTimeout());
        if (destination instanceof VirtualSocketAddress virtual) {
            return connectVirtual(virtual, deadline, options, cancellation);
        }
        if (destination instanceof InetSocketAddress inet) {
            if (inet.isUnresolved() && NodeIdentity.looksLikeIdentity(inet.getHostString())) {
                NodeIdentity node;
                try {
                    node = NodeIdentity.parse(inet.getHostString());
                } catch (IllegalArgumentException e) {
                    throw new UnknownHostException(e.getMessage());
                }
                return connectVirtual(new VirtualSocketAddress(node, inet.getPort()), deadline, options, cancellation);
            }
            if (inet.isUnresolved() && RegisteredName.isValid(inet.getHostString()) && hubLink.expectsHub()) {
                HostNameResolver.Answer answer = names.resolve(inet.getHostString(), deadline, cancellation);
                if (answer instanceof HostNameResolver.Registered registered) {
                    return connectVirtual(
                            new VirtualSocketAddress(registered.node(), inet.getPort()),
                            deadline,
                            options,
                            cancellation);
                }
                StaggeredRace<Socket> race = plainConnector.prepare(
                        ((HostNameResolver.Resolved) answer).addresses(), inet.getPort(), deadline, options);
                cancellation.onCancel(race::cancel);
                return race.run();
            }
            StaggeredRace<Socket> race = plainConnector.prepare(inet, deadline, options);
            cancellation.onCancel(race::cancel);
            return race.run();
        }
        if (destination == null) {
            throw new IllegalArgumentException("connect: the address can't be null");
        }
        throw new IllegalArgumentException(
                "Unsupported address type: " + destination.getClass().getName());
    }

    /** The hub network's name registry, as the name resolver asks it. */
    private HostNameResolver.HubNames hubNames() {
        return new HostNameResolver.HubNames() {
            @Override
            public boolean linked() {
                return hubLink.status().isConnected();
            }

            @Override
            public String linkStatus() {
                return hubLink.status().toString();
            }

            @Override
            public CompletableFuture<Optional<VirtualSocketAddress>> lookup(String name, Duration within) {
                return hubLink.directory().resolveName(name, within);
            }
        };
    }

    private Socket connectVirtual(
            VirtualSocketAddress target, Deadline deadline, ConnectOptions options, Cancellation cancellation)
            throws IOException {
        if (target.getPort() == 0) {
            throw new ConnectException("cannot connect to virtual port 0 of " + target.getHostString());
        }
        ModuleRacer.Race race = racer.prepare(new ConnectRequest(target.node(), target.getPort(), deadline, options));
        cancellation.onCancel(race::cancel);
        ModuleRacer.Outcome outcome = race.connect();
        // A kernel socket whose handshake agreed on TLS is wrapped now, its TLS handshake part of the setup.
        long tlsStarted = System.nanoTime();
        if (kernelTls.isAgreed(outcome.socket())) {
            cancellation.onCancel(
                    () -> SocketAttempt.closeQuietly(outcome.socket())); // the race is over: cancel stops TLS now
        }
        Socket socket = kernelTls.connecting(outcome.socket(), deadline);
        long setupNanos = outcome.setupNanos() + (socket == outcome.socket() ? 0 : System.nanoTime() - tlsStarted);
        ConnectionInfo info = new ConnectionInfo(
                target,
                outcome.module(),
                Duration.ofNanos(setupNanos),
                outcome.fromCache(),
                hubsOf(socket),
                false,
                protectionOf(socket));
        connectionInfo.put(socket, info);
        events.connected(info);
        return socket;
    }

    /** Binds a virtual port (0: any free one) with its backlog; returns the port. */
    public int bindVirtualPort(int port, AcceptQueue queue) throws IOException {
        ensureOpen();
        int bound = ports.bind(port, queue);
        queue.onRoom(listener::roomFreed);
        listener.attach(queue);
        return bound;
    }

    public void unbindVirtualPort(int port, AcceptQueue queue) {
        ports.unbind(port, queue);
    }

    /** Server sockets register so that closing the node closes them too. */
    public void track(Closeable serverSocket) {
        serverSockets.add(serverSocket);
    }

    public void untrack(Closeable serverSocket) {
        serverSockets.remove(serverSocket);
    }

    /** This node's id: its key's, the same for the node's whole life. */
    private NodeId selfId() {
        return identity.current().id().orElseThrow();
    }

    /** Connections this node waits for other nodes to dial back (for tests: nothing may be left waiting). */
    public int pendingReverseConnections() {
        return rendezvous.pending();
    }

    @Override
    public Verdict judge(InetSocketAddress remote, IdentityHandshake.Request request) {
        NodeIdentity expected = request.expectedTarget();
        if (!identity.current().satisfies(expected)) {
            String wanted =
                    expected.id().map(i -> "node " + i).orElse("a node with addresses " + expected.directAddresses());
            return Verdict.reject(
                    Answer.WRONG_NODE, "this is node " + identity.current().id().orElseThrow() + ", not " + wanted);
        }
        if (request.kind() != IdentityHandshake.Kind.PROBE && config.encryptKernelSockets() && !namedSource(request)) {
            return Verdict.reject(Answer.REFUSED, clearRefused(request));
        }
        HandshakeProof.Accepted proof = null;
        if (request.kind() != IdentityHandshake.Kind.PROBE) {
            NodeId source =
                    request.source() == null ? null : request.source().id().orElse(null);
            if (request.provesKey()) {
                try {
                    proof = HandshakeProof.answer(peerSessions, source, request);
                } catch (PeerSessions.SealFailure e) {
                    if (e.unknownSession()) {
                        return Verdict.reject(
                                Answer.UNKNOWN_SESSION,
                                "node " + selfId() + " does not keep the key agreement node " + source
                                        + " resumed (it restarted): agree afresh");
                    }
                    refusedProofs.warn(
                            "Refused a {} from {} stating node {}: {}", request.kind(), remote, source, e.getMessage());
                    return Verdict.reject(
                            Answer.REFUSED, "node " + selfId() + " refused the key proof: " + e.getMessage());
                }
            } else if (source != null && expected.id().isPresent()) {
                // A client that named both nodes could have proved its key: one that did not may pose as another.
                return Verdict.reject(
                        Answer.REFUSED,
                        "node " + selfId() + " accepts a " + request.kind() + " from a named node only with a key"
                                + " proof; node " + source + " sent none");
            }
        }
        return judgeRest(request).withProof(proof);
    }

    /** The node's TLS contexts, made on first use (links and kernel sockets share them). */
    private io.traverse.security.LinkTls linkTls() {
        return hubLink.tls();
    }

    @Override
    public boolean runsTls(IdentityHandshake.Request request) {
        return request.tls()
                || (config.encryptKernelSockets()
                        && request.kind() != IdentityHandshake.Kind.PROBE
                        && namedSource(request));
    }

    private static boolean namedSource(IdentityHandshake.Request request) {
        return request.source() != null && request.source().id().isPresent();
    }

    /**
     * Why a node with {@code traverse.encrypt=all} refuses a request from an anonymous source: TLS
     * needs the id of the key the client must prove.
     */
    private String clearRefused(IdentityHandshake.Request request) {
        return "node " + selfId() + " runs direct, reverse and spliced connections only in TLS (traverse.encrypt=all),"
                + " bound to the id of the node that connects; this " + request.kind() + " names "
                + (request.source() == null ? "no source" : "a source without an id");
    }

    private Verdict judgeRest(IdentityHandshake.Request request) {
        if (request.kind() == IdentityHandshake.Kind.REVERSE) {
            NodeId dialler = request.source().id().orElse(null);
            AcceptQueue expecting = rendezvous.claim(request.token(), dialler);
            if (expecting == null || !expecting.tryReserve()) {
                // REFUSED, not PORT_NOT_FOUND: it rules out this connection only (a token already used
                // by the dialler's faster attempt at another of our addresses), not the dialler's whole race.
                return Verdict.reject(
                        Answer.REFUSED,
                        "this node expects no connection back from "
                                + (dialler == null ? "an anonymous node" : "node " + dialler) + " with that proof");
            }
            return Verdict.accept(expecting);
        }
        AcceptQueue queue = ports.lookup(request.virtualPort());
        if (queue == null) {
            return Verdict.reject(Answer.PORT_NOT_FOUND, "nothing listens on virtual port " + request.virtualPort());
        }
        if (request.kind() == IdentityHandshake.Kind.PROBE) {
            return queue.isClosed()
                    ? Verdict.reject(Answer.PORT_NOT_FOUND, "virtual port " + request.virtualPort() + " is closing")
                    : Verdict.probed();
        }
        if (!queue.tryReserve()) {
            if (queue.isClosed()) {
                return Verdict.reject(Answer.PORT_NOT_FOUND, "virtual port " + request.virtualPort() + " is closing");
            }
            return Verdict.waitForRoom(
                    queue,
                    "the accept backlog of virtual port " + request.virtualPort() + " stayed full (" + queue.capacity()
                            + ") for " + config.handshakeTimeout().toMillis() + " ms");
        }
        return Verdict.accept(queue);
    }

    public boolean isClosed() {
        return closed;
    }

    private void ensureOpen() throws SocketException {
        if (closed) {
            throw new SocketException("Traverse node " + identity.current().id().orElseThrow() + " is closed");
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        for (Closeable s : List.copyOf(serverSockets)) {
            try {
                s.close();
            } catch (IOException e) {
                log.debug("Closing a server socket failed", e);
            }
        }
        racer.close();
        kernelTls.close();
        names.close();
        hubLink.close();
        for (ConnectionModule m : modules) {
            try {
                m.close();
            } catch (RuntimeException e) {
                log.warn("Closing module {} failed", m.name(), e);
            }
        }
        try {
            listener.close();
        } finally {
            attemptExecutor.shutdownNow();
            events.close();
        }
        log.info("Traverse node {} closed", identity.current().id().orElseThrow());
    }

    @Override
    public String toString() {
        return "LocalNode[" + identity.current().id().orElseThrow() + " on port " + listener.port() + "]";
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
