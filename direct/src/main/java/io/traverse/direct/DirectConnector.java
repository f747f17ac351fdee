package io.traverse.direct;

import io.traverse.config.HttpProxy;
import io.traverse.connect.InBandEndOfStreamSocket;
import io.traverse.connect.SocketAttempt;
import io.traverse.connect.StaggeredRace;
import io.traverse.identity.AddressOrdering;
import io.traverse.identity.LocalInterfaces;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.Deadline;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.security.PeerSessions;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectOptions;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.FailureScope;
import io.traverse.spi.HandshakeDialer;
import io.traverse.spi.HandshakeDialerProvider;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Direct connection setup (paper §3.2.2): the target's addresses in heuristic order, tried as
 * staggered parallel TCP connects, each followed by the identity handshake. The winner is the
 * kernel {@link Socket} itself. It is the node's {@link HandshakeDialer}: reverse dials back
 * with it too.
 *
 * <p>Which addresses to try, in which order, is worked out once per target identity
 * ({@link AddressOrdering}; identities are immutable and the interfaces fixed for the node's life)
 * and kept in a bounded cache: a connection to a known node does no address arithmetic.
 */
final class DirectConnector implements HandshakeDialer {
    /** Target identities whose candidates are kept; the cache starts over when it is full. */
    static final int MAX_PLANNED_TARGETS = 1024;
    /** How long a direct attempt waits at most, before it dials, for a tunnel's login under way. */
    static final long MAX_TUNNEL_SET_UP_WAIT_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final Supplier<NodeIdentity> localIdentity;
    private final LocalInterfaces localInterfaces;
    private final LocalInterfaces hostInterfaces;
    private final HttpProxy httpProxy;
    private final InetAddress sourceAddress;
    private final long staggerNanos;
    private final Executor executor;
    /** This node's keys agreed with peers: CONNECT and REVERSE handshakes prove keys; null: they do not. */
    private final PeerSessions peerSessions;
    /** Where handshakes that agreed on TLS record their sockets; null: none asks for TLS. */
    private final io.traverse.connect.KernelTls kernelTls;
    /** {@code traverse.encrypt=all}: every CONNECT and REVERSE asks for TLS. */
    private final boolean askTls;

    private final WorkingAddresses workingAddresses = new WorkingAddresses();
    /**
     * The address each node last answered at through a tunnel: tried first the next time (unless a
     * plain address is known to work), since its plain attempt would only cost a stagger (its SYN
     * is dropped) and a module raced after direct would start meanwhile.
     */
    private final WorkingAddresses workingTunnels = new WorkingAddresses();
    /**
     * Tunnels (by {@link Tunnels.Tunnel#describe()}: one sshd login) whose last connection went
     * through them while no plain connection to an address they cover has worked since: a node
     * newly met behind such a tunnel (a fresh JVM at an SSH-only site, asking to be dialled back) is
     * tried through it first, instead of after a stagger for a plain SYN that the site drops.
     */
    private final Set<String> preferredTunnels = ConcurrentHashMap.newKeySet();
    /**
     * Tunnels to whose networks a plain connection has worked from this node. Until one has, a
     * plain address that a tunnel also leads to may be one the site drops (an SSH-only site), so
     * the tunnelled attempt starts beside the plain one instead of a stagger after it: a dial-back
     * to a node never met there (a fresh JVM asking to be dialled back) then beats a module raced a
     * stagger later, such as routed.
     */
    private final Set<String> plainlyReached = ConcurrentHashMap.newKeySet();

    private final ConcurrentHashMap<NodeIdentity, AddressOrdering.Candidates> candidates = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<NodeIdentity, EncodedConnect> encodedConnects = new ConcurrentHashMap<>();
    /**
     * The tunnels the direct module set up from this node's rules (traverse.ssh.tunnels), or null:
     * a dial-back that another node asked for goes through them as a direct CONNECT would.
     */
    private volatile Tunnels dialBackTunnels;

    DirectConnector(HandshakeDialerProvider.Setup setup) {
        this.httpProxy = setup.httpOnlyWayOut();
        this.localIdentity = setup.localIdentity();
        this.localInterfaces = setup.localInterfaces();
        this.hostInterfaces = setup.hostInterfaces();
        this.sourceAddress = needsExplicitSource(setup.bindAddress()) ? setup.bindAddress() : null;
        this.staggerNanos = setup.staggerNanos();
        this.executor = setup.executor();
        this.peerSessions = setup.peerSessions();
        this.kernelTls = setup.kernelTls();
        this.askTls = setup.askTls() && setup.kernelTls() != null;
    }

    /** Which of the target's addresses to dial, in order, and which not (with why); cached per identity. */
    AddressOrdering.Candidates candidatesFor(NodeIdentity target) {
        AddressOrdering.Candidates known = candidates.get(target);
        if (known != null) {
            return known;
        }
        AddressOrdering.Candidates planned = AddressOrdering.candidates(
                target,
                localInterfaces,
                hostInterfaces,
                localIdentity.get().hostKey().orElse(null));
        if (candidates.size() >= MAX_PLANNED_TARGETS) {
            candidates.clear();
        }
        candidates.put(target, planned);
        return planned;
    }

    @Override
    public boolean onOtherPrivateNetworks(NodeIdentity target) {
        return candidatesFor(target).onlyOtherNetworksPrivate() && workingAddresses.known(target) == null;
    }

    @Override
    public ConnectionAttempt attempt(ConnectRequest request) throws AttemptFailedException {
        return plan(request, null, null, null);
    }

    /**
     * With a token, addresses that the tunnels handed to {@link #useTunnelsForDialBacks} lead to
     * are tried through them too, as for a CONNECT.
     */
    @Override
    public ConnectionAttempt dialBack(ConnectRequest request, byte[] reverseToken, BeforeHandshake beforeHandshake)
            throws AttemptFailedException {
        return plan(request, reverseToken, dialBackTunnels, beforeHandshake);
    }

    /**
     * The tunnels a dial-back ({@link #dialBack}) may go through,
     * as {@link #attemptWithTunnels} does for a CONNECT: the direct module, which owns this node's
     * SSH tunnels, hands them over here so that the reverse module (which knows no SSH) uses the same.
     *
     * @param tunnels null: dial-backs use plain TCP only
     */
    void useTunnelsForDialBacks(Tunnels tunnels) {
        this.dialBackTunnels = tunnels;
    }

    /**
     * Plans a direct connection (as {@link #attempt(ConnectRequest)}) that may also go through
     * tunnels: each address a tunnel leads to is tried plainly first and, after the plain
     * attempts, through its tunnel; a tunnelled winner is an {@link InBandEndOfStreamSocket}.
     *
     * @param tunnels null: plain TCP only
     * @throws AttemptFailedException with {@link FailureScope#MODULE} when the target has no direct address
     */
    ConnectionAttempt attemptWithTunnels(ConnectRequest request, Tunnels tunnels) throws AttemptFailedException {
        return plan(request, null, tunnels, null);
    }

    private ConnectionAttempt plan(
            ConnectRequest request, byte[] reverseToken, Tunnels tunnels, BeforeHandshake beforeHandshake)
            throws AttemptFailedException {
        NodeIdentity target = request.target();
        AddressOrdering.Candidates planned = candidatesFor(target);
        List<InetSocketAddress> order = workingAddresses.first(target, planned.order());
        if (httpProxy != null && !order.isEmpty()) {
            List<InetSocketAddress> outside =
                    order.stream().filter(a -> !withoutProxy(a)).toList();
            if (outside.size() == order.size()) {
                throw new AttemptFailedException(
                        FailureScope.MODULE,
                        "node " + target + " cannot be reached directly from here: this node's way out"
                                + " is HTTP proxy " + httpProxy.authority() + " (" + httpProxy.origin()
                                + "), which tunnels its hub link only;"
                                + " none of " + order + " is on this host's networks or in the non-proxy hosts '"
                                + httpProxy.nonProxyHosts() + "'");
            }
            order = order.stream().filter(this::withoutProxy).toList();
        }
        if (order.isEmpty()) {
            throw new AttemptFailedException(
                    FailureScope.MODULE,
                    "node " + target + " has no direct address"
                            + (planned.skipped().isEmpty()
                                    ? ""
                                    : " that can lead to it from this host" + skippedNote(planned)));
        }
        byte[] handshake = handshakeFor(request, reverseToken);
        KeyProver keyProof = keyProverFor(request);
        List<StaggeredRace.Attempt<Socket>> attempts = new ArrayList<>(order.size());
        List<HandshakeAttempt> plainAttempts = new ArrayList<>(order.size());
        List<Optional<Tunnels.Tunnel>> tunnelled = new ArrayList<>(order.size());
        for (InetSocketAddress address : order) {
            Optional<Tunnels.Tunnel> tunnel = tunnels == null ? Optional.empty() : tunnels.to(address);
            tunnelled.add(tunnel);
            HandshakeAttempt plain = new HandshakeAttempt(
                    address, request, optionsFor(address, request.options()), handshake, workingAddresses);
            plain.keyProof = keyProof;
            plain.kernelTls = kernelTls;
            plain.beforeHandshake = beforeHandshake;
            tunnel.ifPresent(t -> plain.onSuccess = () -> {
                preferredTunnels.remove(t.describe());
                if (plainlyReached.size() < MAX_PLANNED_TARGETS) {
                    plainlyReached.add(t.describe());
                }
            });
            attempts.add(plain);
            plainAttempts.add(plain);
        }
        List<CompletableFuture<?>> setUps = new ArrayList<>(0);
        if (tunnels != null) {
            byte[] tunnelHandshake = null;
            InetSocketAddress knownTunnel = workingTunnels.known(target);
            boolean tunnelFirst = workingAddresses.known(target) == null;
            for (int i = 0; i < order.size(); i++) {
                InetSocketAddress address = order.get(i);
                Optional<Tunnels.Tunnel> tunnel = tunnelled.get(i);
                if (tunnel.isPresent()) {
                    if (tunnelHandshake == null) {
                        IdentityHandshake.Kind kind = reverseToken != null
                                ? IdentityHandshake.Kind.REVERSE
                                : request.probe() ? IdentityHandshake.Kind.PROBE : IdentityHandshake.Kind.CONNECT;
                        IdentityHandshake.Request throughTunnel = new IdentityHandshake.Request(
                                kind, request.virtualPort(), target, localIdentity.get(), reverseToken, true);
                        tunnelHandshake = IdentityHandshake.encode(
                                asksTls(throughTunnel) ? throughTunnel.withTls() : throughTunnel);
                    }
                    CompletableFuture<?> setUp = tunnel.get().setUpUnderWay();
                    if (setUp != null && !setUps.contains(setUp)) {
                        setUps.add(setUp);
                    }
                    TunnelledAttempt through = new TunnelledAttempt(
                            address, tunnel.get(), request, tunnelHandshake, workingTunnels, preferredTunnels);
                    through.keyProof = keyProof;
                    through.kernelTls = kernelTls;
                    through.beforeHandshake = beforeHandshake;
                    boolean first = knownTunnel != null
                            ? address.equals(knownTunnel)
                            : preferredTunnels.contains(tunnel.get().describe());
                    if (tunnelFirst && first) {
                        attempts.add(0, through);
                        tunnelFirst = false; // one goes first; the others keep their place after the plain attempts
                    } else if (!plainlyReached.contains(tunnel.get().describe())) {
                        // Nothing says the plain address works: the tunnel starts beside it rather than a stagger
                        // after a SYN that the site may drop. Where plain works it usually wins (fewer steps).
                        int at = attempts.indexOf(plainAttempts.get(i));
                        attempts.set(at, new SideBySide(plainAttempts.get(i), through, request));
                    } else {
                        attempts.add(through);
                    }
                }
            }
        }
        long stagger = request.options().localAddress() != null
                        && request.options().localAddress().getPort() != 0
                ? Long.MAX_VALUE // one fixed local port: one attempt at a time
                : staggerNanos;
        StaggeredRace<Socket> race = new StaggeredRace<>(
                attempts,
                stagger,
                request.deadline(),
                executor,
                failure -> FailureScope.of(failure) != FailureScope.PATH,
                SocketAttempt::closeQuietly,
                request.rivals()::appeared);
        TunnelSetUpWait setUpWait = setUps.isEmpty() ? null : new TunnelSetUpWait(setUps);
        // Only another network's private addresses, no tunnel, none that worked before: most such SYNs are dropped.
        boolean otherPrivate = order.size() == planned.order().size()
                ? planned.onlyOtherNetworksPrivate() // cached per target
                : AddressOrdering.onlyOtherNetworksPrivate(order, localInterfaces); // the proxy left some out
        boolean longShot = otherPrivate
                && tunnelled.stream().noneMatch(Optional::isPresent)
                && workingAddresses.known(target) == null;
        return new ConnectionAttempt() {
            @Override
            public boolean longShot() {
                return longShot;
            }

            @Override
            public void prepare() throws IOException {
                if (setUpWait != null) {
                    setUpWait.await(request.deadline());
                }
            }

            @Override
            public Socket connect() throws IOException {
                try {
                    return race.run();
                } catch (IOException e) {
                    throw withSkipped(e, planned);
                }
            }

            @Override
            public void confirm() throws IOException {
                race.confirmWinner();
            }

            @Override
            public void cancel() {
                if (setUpWait != null) {
                    setUpWait.cancel();
                }
                race.cancel();
            }

            @Override
            public String progress() {
                return setUpWait != null && setUpWait.waiting ? "waiting for an SSH login under way" : null;
            }
        };
    }

    /**
     * A direct attempt's wait, before its addresses are dialled, for tunnel setups already under
     * way (an SSH login that node start began): the racer counts the stagger to the next module
     * from the end of this wait, so a cold node reaches a site that only SSH lets in through the
     * tunnel rather than through a relay that needed no login. Bounded by
     * {@link #MAX_TUNNEL_SET_UP_WAIT_NANOS}: a login that hangs costs that once, and its outcome
     * does not matter here (the tunnelled attempt reports a failed login itself).
     */
    private static final class TunnelSetUpWait {
        private final CompletableFuture<Void> done;
        volatile boolean waiting;

        TunnelSetUpWait(List<CompletableFuture<?>> setUps) {
            done = CompletableFuture.allOf(
                    setUps.stream().map(f -> f.handle((r, e) -> null)).toArray(CompletableFuture[]::new));
        }

        void await(Deadline deadline) throws IOException {
            long nanos = Math.min(deadline.remainingNanos(), MAX_TUNNEL_SET_UP_WAIT_NANOS);
            if (done.isDone() || nanos <= 0) {
                return;
            }
            waiting = true;
            try {
                done.get(nanos, TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException | CancellationException e) {
                // still under way or called off: dial now, the tunnelled attempt waits on within the deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted waiting for an SSH login");
            } finally {
                waiting = false;
            }
        }

        void cancel() {
            done.cancel(false);
        }
    }

    /** True if {@code address} is reached without the HTTP proxy: on one of this host's networks, or a non-proxy host. */
    private boolean withoutProxy(InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        return ip == null
                || ip.isLoopbackAddress()
                || hostInterfaces.isOnLink(ip)
                || !httpProxy.appliesTo(ip.getHostAddress());
    }

    /**
     * The encoded handshake request. An ordinary CONNECT to a target is the same bytes every time
     * while this node's identity stays the same, so those are kept per target (with the rest of
     * what is planned once per target) instead of being encoded again for every connection.
     */
    private byte[] handshakeFor(ConnectRequest request, byte[] reverseToken) {
        IdentityHandshake.Kind kind = reverseToken != null
                ? IdentityHandshake.Kind.REVERSE
                : request.probe() ? IdentityHandshake.Kind.PROBE : IdentityHandshake.Kind.CONNECT;
        NodeIdentity self = localIdentity.get();
        if (kind != IdentityHandshake.Kind.CONNECT) {
            IdentityHandshake.Request other =
                    new IdentityHandshake.Request(kind, request.virtualPort(), request.target(), self, reverseToken);
            return IdentityHandshake.encode(asksTls(other) ? other.withTls() : other);
        }
        EncodedConnect known = encodedConnects.get(request.target());
        if (known != null && known.port() == request.virtualPort() && known.source() == self) {
            return known.bytes();
        }
        IdentityHandshake.Request connect =
                new IdentityHandshake.Request(kind, request.virtualPort(), request.target(), self, null);
        byte[] bytes = IdentityHandshake.encode(asksTls(connect) ? connect.withTls() : connect);
        if (encodedConnects.size() >= MAX_PLANNED_TARGETS) {
            encodedConnects.clear();
        }
        encodedConnects.put(request.target(), new EncodedConnect(request.virtualPort(), self, bytes));
        return bytes;
    }

    /**
     * True if {@code request} asks for TLS: {@code traverse.encrypt=all}, and both nodes named by
     * their ids (TLS proves the keys of those ids). A PROBE asks for none.
     */
    private boolean asksTls(IdentityHandshake.Request request) {
        return askTls
                && request.kind() != IdentityHandshake.Kind.PROBE
                && request.source() != null
                && request.source().id().isPresent()
                && request.expectedTarget().id().isPresent();
    }

    /**
     * How the attempts of {@code request} prove keys, or null: a PROBE proves none, and a target
     * without an id (an address only) cannot be proved (the offer is bound to the target's id).
     */
    private KeyProver keyProverFor(ConnectRequest request) {
        if (peerSessions == null || request.probe()) {
            return null;
        }
        return request.target().id().map(id -> new KeyProver(peerSessions, id)).orElse(null);
    }

    /** A CONNECT request to one virtual port, as sent by this node with identity {@code source}; never written to. */
    private record EncodedConnect(int port, NodeIdentity source, byte[] bytes) {}

    private static String skippedNote(AddressOrdering.Candidates planned) {
        return " (skipped " + String.join(", ", planned.skipped()) + ")";
    }

    /** The failure with the addresses left out named in its message; same type and scope. */
    static IOException withSkipped(IOException failure, AddressOrdering.Candidates planned) {
        if (planned.skipped().isEmpty()) {
            return failure;
        }
        String message = failure.getMessage() + skippedNote(planned);
        IOException described;
        if (failure instanceof AttemptFailedException a) {
            described = new AttemptFailedException(a.scope(), message);
        } else if (failure instanceof SocketTimeoutException) {
            described = new SocketTimeoutException(message);
        } else if (failure instanceof ConnectException) {
            described = new ConnectException(message);
        } else {
            return failure; // e.g. "Socket closed" after a cancel: nothing to add
        }
        described.initCause(failure);
        for (Throwable t : failure.getSuppressed()) {
            described.addSuppressed(t);
        }
        return described;
    }

    /**
     * A node on a loopback alias such as 127.0.2.1 (the demo's and tests' simulated sites) must
     * send from it, or the kernel sends from 127.0.0.1 and peers' firewall rules see the wrong
     * source. On real interfaces the kernel's source selection already picks the interface's own
     * address, and an explicit bind would cost a search of the port space on every connect.
     */
    static boolean needsExplicitSource(InetAddress bindAddress) {
        return bindAddress != null
                && bindAddress.isLoopbackAddress()
                && !bindAddress.equals(InetAddress.getLoopbackAddress())
                && !(bindAddress instanceof java.net.Inet6Address);
    }

    private ConnectOptions optionsFor(InetSocketAddress target, ConnectOptions asked) {
        if (asked.localAddress() != null || sourceAddress == null) {
            return asked;
        }
        for (LocalInterfaces.LocalAddress local : localInterfaces.addresses()) {
            if (local.subnet().contains(target.getAddress())) {
                return new ConnectOptions(new InetSocketAddress(sourceAddress, 0), asked.receiveBufferSize());
            }
        }
        return asked;
    }

    /**
     * A plain attempt and a tunnelled one to the same address, started together (a race without a
     * stagger): the first that gets through wins and the other is called off. Its place in the
     * address order is the plain attempt's.
     */
    private final class SideBySide implements StaggeredRace.Attempt<Socket> {
        private final StaggeredRace.Attempt<Socket> plain;
        private final StaggeredRace.Attempt<Socket> through;
        private final StaggeredRace<Socket> race;

        SideBySide(StaggeredRace.Attempt<Socket> plain, StaggeredRace.Attempt<Socket> through, ConnectRequest request) {
            this.plain = plain;
            this.through = through;
            this.race = new StaggeredRace<>(
                    List.of(plain, through),
                    0,
                    request.deadline(),
                    executor,
                    failure -> FailureScope.of(failure) != FailureScope.PATH,
                    SocketAttempt::closeQuietly,
                    request.rivals()::appeared);
        }

        @Override
        public Socket run() throws IOException {
            return race.run();
        }

        @Override
        public void confirm() throws IOException {
            race.confirmWinner();
        }

        @Override
        public void cancel() {
            race.cancel();
        }

        @Override
        public String describe() {
            return plain.describe() + " beside " + through.describe();
        }
    }
}
