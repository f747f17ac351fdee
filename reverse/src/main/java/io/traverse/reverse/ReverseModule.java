package io.traverse.reverse;

import io.traverse.SideChannel;
import io.traverse.SideChannelException;
import io.traverse.identity.AddressClass;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.ProtocolException;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.FailureScope;
import io.traverse.spi.HubLinkWait;
import io.traverse.spi.InboundConnections;
import io.traverse.spi.ModuleContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** The source's side: asks the target to dial back and waits for the connection. */
final class ReverseModule implements ConnectionModule {
    /** Dial-backs under way at once at most; beyond, a request is answered at once that the node is busy. */
    static final int MAX_DIAL_BACKS = 64;

    private static final long DEADLINE_MARGIN_MILLIS = 20;
    /** How long a dial-back that got through waits at most for an unheld rival's answer (Rivals#heldMayWin). */
    static final long GIVE_WAY_WAIT_NANOS = 20_000_000;

    private final ModuleContext context;
    private final ThreadPoolExecutor dialBacks;
    private final SideChannel.Registration service;
    private final SideChannel.Registration probeService;

    ReverseModule(ModuleContext context) {
        this.context = context;
        this.dialBacks =
                new ThreadPoolExecutor(0, MAX_DIAL_BACKS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
                    Thread t = new Thread(r, "traverse-dial-back");
                    t.setDaemon(true);
                    return t;
                });
        this.service = context.sideChannel()
                .register(DialBackMessages.SERVICE, new DialBackService(context, dialBacks, false));
        this.probeService = context.sideChannel()
                .register(DialBackMessages.PROBE_SERVICE, new DialBackService(context, dialBacks, true));
    }

    @Override
    public String name() {
        return ReverseModuleProvider.NAME;
    }

    @Override
    public ConnectionAttempt plan(ConnectRequest request) throws AttemptFailedException {
        NodeId target = HubLinkWait.targetNode(request, "to ask through the hubs");
        HubLinkWait.requireExpected(context, "to ask node " + target + " to dial back");
        if (context.localIdentity().directAddresses().isEmpty()) {
            throw AttemptFailedException.notApplicable(
                    FailureScope.MODULE, "this node has no address node " + target + " could dial back");
        }
        java.util.Optional<io.traverse.config.HttpProxy> proxyOnly = context.httpOnlyWayOut();
        if (proxyOnly.isPresent()
                && request.target().directAddresses().stream()
                        .noneMatch(a -> a.getAddress() != null
                                && context.localInterfaces().isOnLink(a.getAddress()))) {
            // A node that only an HTTP proxy lets out cannot be dialled back from outside its own networks.
            throw AttemptFailedException.notApplicable(
                    FailureScope.MODULE,
                    "this node's only way out is HTTP proxy " + proxyOnly.get().authority() + ": node " + target
                            + " has no address on this node's networks to dial back from");
        }
        return new DialBackAttempt(request, target, dialBackIsLongShot(request));
    }

    private boolean dialBackIsLongShot(ConnectRequest request) {
        return dialBackIsLongShot(
                context.localIdentity(), context.handshakeDialer().onOtherPrivateNetworks(request.target()));
    }

    /**
     * A dial-back is a long shot when the target sits on another private network and this node
     * ({@code self}) has only private, link-local or loopback addresses and names no forwarder: the
     * target's SYNs to them leave its site and are dropped, unless a VPN or a routed site joins the
     * two. The chain then goes on at once (to splice, between two NATs) instead of a stagger later;
     * the dial-back still runs, and wins if it gets through after all.
     */
    static boolean dialBackIsLongShot(NodeIdentity self, boolean targetOnOtherPrivateNetworks) {
        if (!targetOnOtherPrivateNetworks || !self.externals().isEmpty()) {
            return false;
        }
        for (InetSocketAddress a : self.addresses()) {
            AddressClass c = AddressClass.of(a.getAddress());
            if (c != AddressClass.PRIVATE && c != AddressClass.LINK_LOCAL && c != AddressClass.LOOPBACK) {
                return false; // public, shared (a carrier's) or unique-local: maybe reachable from there
            }
        }
        return true;
    }

    @Override
    public void close() {
        service.close();
        probeService.close();
        dialBacks.shutdownNow();
    }

    static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to do
        }
    }

    private final class DialBackAttempt implements ConnectionAttempt {
        private final ConnectRequest request;
        private final NodeId target;
        private final HubLinkWait link;
        /** The target is on another private network and this node has only private addresses. */
        private final boolean longShot;

        private final AtomicReference<AttemptFailedException> refusal = new AtomicReference<>();
        private volatile InboundConnections.Expectation expectation;
        private volatile CompletableFuture<byte[]> answer;
        private volatile boolean cancelled;
        /** The dialled-back connection, which its target holds until {@link #confirm()}. */
        private volatile Socket won;

        DialBackAttempt(ConnectRequest request, NodeId target, boolean longShot) {
            this.request = request;
            this.target = target;
            this.longShot = longShot;
            this.link = HubLinkWait.of(context);
        }

        @Override
        public boolean longShot() {
            return longShot;
        }

        @Override
        public void prepare() throws IOException {
            link.await(request.deadline(), "to ask node " + target + " to dial back");
        }

        @Override
        public Socket connect() throws IOException {
            // Read after the link is up: the identity then names the hub it came through.
            NodeIdentity self = context.localIdentity();
            InboundConnections.Expectation waiting =
                    context.inboundConnections().expect(target, request.virtualPort());
            expectation = waiting;
            try {
                if (cancelled) {
                    throw new AttemptFailedException(FailureScope.PATH, "cancelled");
                }
                int millis = request.deadline().remainingMillis();
                if (millis <= 0) {
                    throw new SocketTimeoutException(
                            "connect timed out before asking node " + target + " to dial back");
                }
                // Held only when the connect has a rival, as every module's request (Rivals): a lone attempt's
                // connection goes to the target's application as soon as its handshake is accepted, with no CONFIRM.
                boolean held = request.holdUntilConfirmed();
                byte[] ask = DialBackMessages.encode(new DialBackMessages.Request(
                        waiting.token(), request.virtualPort(), millis, self.toText(), held));
                CompletableFuture<byte[]> pending = context.sideChannel()
                        .request(
                                target,
                                request.probe() ? DialBackMessages.PROBE_SERVICE : DialBackMessages.SERVICE,
                                ask,
                                Duration.ofMillis(millis));
                answer = pending;
                pending.whenComplete((bytes, failure) -> {
                    AttemptFailedException refused = failure != null ? fromSideChannel(failure) : fromAnswer(bytes);
                    if (refused != null) {
                        refusal.set(refused);
                        waiting.close(); // wakes take() below
                    }
                });
                try {
                    // The target took its backlog slot before its handshake went out (version 3): the connection's
                    // arrival is the answer, and the side channel's CONNECTED, half a round trip later, is not awaited.
                    if (!held && !request.probe()) {
                        return request.rivals().unheld(() -> waiting.take(untilPastDeadline()));
                    }
                    Socket socket = waiting.take(untilPastDeadline());
                    if (held && !request.rivals().heldMayWin(request.deadline(), GIVE_WAY_WAIT_NANOS)) {
                        closeQuietly(socket);
                        throw new AttemptFailedException(
                                FailureScope.PATH, "gave way to an attempt node " + target + " had accepted unheld");
                    }
                    won = held ? socket : null;
                    return socket;
                } catch (SocketTimeoutException e) {
                    throw new SocketTimeoutException("connect timed out waiting for node " + target + " to dial back");
                } catch (IOException e) {
                    AttemptFailedException refused = refusal.get();
                    if (refused != null) {
                        throw refused;
                    }
                    throw new AttemptFailedException(FailureScope.PATH, cancelled ? "cancelled" : e.getMessage());
                }
            } finally {
                waiting.close();
            }
        }

        /**
         * How long to wait: a little past the deadline, so that the racer's deadline, not this
         * wait, ends an attempt that runs out of time (and the application sees a timeout).
         */
        private long untilPastDeadline() {
            return request.deadline().remainingMillis() + DEADLINE_MARGIN_MILLIS;
        }

        private AttemptFailedException fromAnswer(byte[] bytes) {
            DialBackMessages.Answer a;
            try {
                a = DialBackMessages.decodeAnswer(bytes);
            } catch (ProtocolException e) {
                return new AttemptFailedException(
                        FailureScope.MODULE,
                        "node " + target + " answered the dial-back request wrongly: " + e.getMessage());
            }
            return switch (a.status()) {
                case CONNECTED -> null;
                case TARGET_ANSWER -> new AttemptFailedException(FailureScope.TARGET, a.reason());
                case UNREACHABLE -> new AttemptFailedException(FailureScope.MODULE, a.reason());
                case BAD_REQUEST ->
                    new AttemptFailedException(
                            FailureScope.MODULE, "node " + target + " refused to dial back: " + a.reason());
            };
        }

        private AttemptFailedException fromSideChannel(Throwable failure) {
            Throwable cause =
                    failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
            String why = cause instanceof SideChannelException s
                    ? s.failure() + ": " + s.getMessage()
                    : String.valueOf(cause.getMessage());
            if (cause instanceof SideChannelException s && s.failure() == SideChannelException.Failure.TIMEOUT) {
                return new AttemptFailedException(
                        FailureScope.PATH, "node " + target + " did not answer the dial-back request: " + why);
            }
            return new AttemptFailedException(
                    FailureScope.MODULE, "could not ask node " + target + " to dial back: " + why);
        }

        @Override
        public void confirm() throws IOException {
            Socket socket = won;
            if (socket != null) {
                socket.getOutputStream().write(IdentityHandshake.CONFIRM);
            }
        }

        @Override
        public String progress() {
            return link.progress();
        }

        @Override
        public void cancel() {
            cancelled = true;
            link.cancel();
            CompletableFuture<byte[]> pending = answer;
            if (pending != null) {
                pending.cancel(false);
            }
            InboundConnections.Expectation waiting = expectation;
            if (waiting != null) {
                waiting.close();
            }
        }
    }
}
