package io.traverse;

import io.traverse.identity.NodeIdentity;
import io.traverse.node.LocalNode;
import java.io.Closeable;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One Traverse node: a listening port with virtual ports, an identity, the connection modules
 * found on the class path, and (with {@code traverse.hubs} or a hub found by discovery) a link
 * to the hub network for names, the {@linkplain #sideChannel() side channel} and
 * {@linkplain #hubDirectory() lookups}. Several nodes may run in one JVM.
 *
 * <pre>{@code
 * try (Traverse node = Traverse.start(TraverseConfig.load())) {
 *     ServerSocket server = node.serverSocketFactory().createServerSocket(5000);
 *     // clients connect to server.getLocalSocketAddress() from anywhere
 * }
 * }</pre>
 *
 * <p>{@link TraverseSocketFactory#getDefault()} and {@link TraverseServerSocketFactory#getDefault()}
 * share a default node, started on first use from {@link TraverseConfig#load()}.
 */
public final class Traverse implements Closeable {
    private static final Object DEFAULT_LOCK = new Object();
    private static Traverse defaultNode;

    private final LocalNode node;
    private final TraverseSocketFactory socketFactory;
    private final TraverseServerSocketFactory serverSocketFactory;

    private Traverse(LocalNode node) {
        this.node = node;
        this.socketFactory = new TraverseSocketFactory(() -> node);
        this.serverSocketFactory = new TraverseServerSocketFactory(() -> node);
    }

    /** Starts a node: binds its listening port, scans interfaces, loads modules. */
    public static Traverse start(TraverseConfig config) throws IOException {
        return new Traverse(LocalNode.start(config));
    }

    /** Starts a node configured from system properties, environment and {@code traverse.properties}. */
    public static Traverse start() throws IOException {
        return start(TraverseConfig.load());
    }

    /**
     * The default node: the one behind {@link TraverseSocketFactory#getDefault()}, {@code new
     * TraverseSocketFactory()} and their server counterparts, started from {@link TraverseConfig#load()}
     * on first use (by this call or by a factory). Ask it which module made a connection
     * ({@link #connectionInfo}), for statistics, or for its hub link. Closing it is allowed: the next
     * use starts a new default node.
     *
     * @throws IOException if the default node cannot start (e.g. no free port in the configured range)
     */
    public static Traverse getDefault() throws IOException {
        synchronized (DEFAULT_LOCK) {
            if (defaultNode == null || defaultNode.node.isClosed()) {
                defaultNode = start(TraverseConfig.load());
            }
            return defaultNode;
        }
    }

    /** The node behind the default factories, started on first use. */
    static LocalNode defaultNode() throws IOException {
        return getDefault().node;
    }

    /** Sockets from this node. */
    public TraverseSocketFactory socketFactory() {
        return socketFactory;
    }

    /** Server sockets on virtual ports of this node. */
    public TraverseServerSocketFactory serverSocketFactory() {
        return serverSocketFactory;
    }

    public NodeIdentity identity() {
        return node.identity();
    }

    /** The virtual address of {@code port} on this node. */
    public VirtualSocketAddress address(int port) {
        return new VirtualSocketAddress(node.identity(), port);
    }

    public TraverseConfig config() {
        return node.config();
    }

    /** The modules in use, in the configured order. */
    public List<String> modules() {
        return node.moduleNames();
    }

    /** The real TCP port the node listens on. */
    public int listeningPort() {
        return node.listeningPort();
    }

    /** Per-module connection setup counters. */
    public List<ModuleStatistics> statistics() {
        return node.statistics();
    }

    /** How a socket this node connected to a virtual address, or accepted on a virtual port, was made. */
    public Optional<ConnectionInfo> connectionInfo(Socket socket) {
        if (socket instanceof TraverseSocket ts) {
            return ts.connection().flatMap(node::connectionInfo);
        }
        return node.connectionInfo(socket);
    }

    /**
     * A snapshot of a socket this node connected or accepted: how it was made (module, hubs
     * traversed, setup time) and the bytes the application read and wrote so far. Bytes are
     * counted only for connections whose bytes Traverse relays itself ({@code routed}); a kernel
     * socket from {@code direct}, {@code reverse} or {@code splice} is the JDK's own, never
     * wrapped, so its byte counts are empty (see {@link ConnectionStatistics}).
     *
     * @return empty for a socket this node did not make or accept (or plain TCP to a host)
     */
    public Optional<ConnectionStatistics> connectionStatistics(Socket socket) {
        if (socket instanceof TraverseSocket ts) {
            return ts.connection().flatMap(node::connectionStatistics);
        }
        return node.connectionStatistics(socket);
    }

    /**
     * Adds a listener for this node's events (connections made and failed, peers unreachable, hub
     * link up and lost, paths upgraded); events are delivered in order on the node's own event
     * thread (see {@link TraverseListener}).
     */
    public void addListener(TraverseListener listener) {
        node.addListener(listener);
    }

    /** Removes a listener; events already queued for delivery may still reach it. */
    public void removeListener(TraverseListener listener) {
        node.removeListener(listener);
    }

    /** Control messages to other nodes by node id, through the hubs. */
    public SideChannel sideChannel() {
        return node.hubLink().sideChannel();
    }

    /** Lookups at the hub network: names, nodes, hubs, links. */
    public HubDirectory hubDirectory() {
        return node.hubLink().directory();
    }

    /** The state of this node's link to the hub network. */
    public HubLinkStatus hubLinkStatus() {
        return node.hubLink().status();
    }

    /**
     * How the hub link reaches its hub while it is a long-poll session, e.g. "long-poll
     * session through HTTP proxy 10.0.3.1:3128 (system property traverse.http.proxy) with hub
     * 198.18.0.1:17000"; empty while the link is a TCP connection (perhaps a CONNECT tunnel) or down.
     */
    public Optional<String> hubLongPollRoute() {
        return node.hubLink().longPollRoute();
    }

    /**
     * What the HTTP proxy ({@code traverse.http.proxy}) answered this node's last CONNECT to a hub,
     * naming the proxy; empty without a proxy or before the first attempt.
     */
    public Optional<String> hubProxyAnswer() {
        return node.hubLink().proxyAnswer();
    }

    /**
     * Waits until this node is linked to a hub (linking runs in the background from start).
     *
     * @return true if linked; false if the timeout passed, there is no hub to link to, or a hub refused this
     *         node for one of its settings ({@link HubLinkStatus#refusedForSetting()}: a wrong token)
     */
    public boolean awaitHubLink(Duration timeout) throws InterruptedException {
        return node.hubLink().awaitConnected(timeout);
    }

    /** Closes the listening port, every server socket of this node and the modules. */
    @Override
    public void close() throws IOException {
        node.close();
    }

    @Override
    public String toString() {
        return "Traverse[" + node.identity() + "]";
    }
}
