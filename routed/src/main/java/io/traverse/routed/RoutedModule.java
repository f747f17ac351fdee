package io.traverse.routed;

import io.traverse.VirtualSocketAddress;
import io.traverse.identity.NodeId;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.FailureScope;
import io.traverse.spi.HubLinkWait;
import io.traverse.spi.ModuleContext;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The routed module (paper §3.3.3): a virtual connection relayed by the hubs along their routing
 * table, for when no kernel socket can be made. It works whenever both nodes have a hub link and
 * their hubs are connected, whatever firewalls and NATs are in the way, at the cost of hub hops.
 */
final class RoutedModule implements ConnectionModule {
    /** Bytes each end lets the other send beyond what its application has read. */
    static final int WINDOW = 1024 * 1024;
    /** How long past the connect deadline to wait, so that the racer's deadline, not this one, decides. */
    private static final long DEADLINE_MARGIN_MILLIS = 20;
    /** How long a held connection that got through waits at least for an unheld rival's answer (Rivals#heldMayWin). */
    private static final long GIVE_WAY_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How long to let a link that is going down be noticed before waiting for the next one. */
    private static final long LINK_SETTLE_MILLIS = 5;

    private final ModuleContext context;
    private final String name;
    private final java.util.function.Function<ConnectRequest, String> notTried;
    private final SharedRoutedConnections shared;
    private final RoutedConnections connections;

    RoutedModule(ModuleContext context) {
        this(context, RoutedModuleProvider.NAME, null);
    }

    /**
     * @param name     the module's name in the chain
     * @param notTried why this module leaves a request to another (null: it plans an attempt); null for routed's own rule
     */
    RoutedModule(ModuleContext context, String name, java.util.function.Function<ConnectRequest, String> notTried) {
        this.context = context;
        this.name = name;
        this.shared = SharedRoutedConnections.acquire(context, name);
        this.connections = shared.connections();
        this.notTried = notTried != null ? notTried : this::routedNotTried;
    }

    /** Routed leaves a long-poll hub link to the longpoll module when that module is in the chain. */
    private String routedNotTried(ConnectRequest request) {
        if (shared.has(LONGPOLL) && context.hubLinkIsLongPoll()) {
            return "the hub link is a long-poll session; " + LONGPOLL + " carries it";
        }
        return null;
    }

    private static final String LONGPOLL = "longpoll";

    @Override
    public String name() {
        return name;
    }

    /** Every byte passes through the hubs. */
    @Override
    public boolean relays() {
        return true;
    }

    @Override
    public ConnectionAttempt plan(ConnectRequest request) throws AttemptFailedException {
        NodeId target = HubLinkWait.targetNode(request, "for the hubs to route to");
        String other = notTried.apply(request);
        if (other != null) {
            throw AttemptFailedException.notApplicable(FailureScope.MODULE, other);
        }
        if (request.probe()) {
            // An OPEN would put a connection in the target's backlog: no way to ask without one.
            throw AttemptFailedException.notApplicable(
                    FailureScope.MODULE, "a relayed connection cannot be probed without making one");
        }
        if (!connections.isLinked()) {
            HubLinkWait.requireExpected(context, "to route a connection to node " + target);
        }
        if (target.equals(connections.localId())) {
            throw AttemptFailedException.notApplicable(
                    FailureScope.MODULE, "a node does not route connections to itself");
        }
        return new RoutedAttempt(request, target);
    }

    /** Relayed connections open or being opened (for tests: nothing may be left behind). */
    int openConnections() {
        return connections.size();
    }

    @Override
    public void close() {
        shared.release(name);
    }

    private final class RoutedAttempt implements ConnectionAttempt {
        private final ConnectRequest request;
        private final NodeId target;
        private final HubLinkWait link;
        private volatile RoutedConnections.Opening opening;
        private volatile boolean cancelled;
        /** The connection the acceptor holds until {@link #confirm()}, if it was asked to. */
        private volatile RoutedConnection held;

        RoutedAttempt(ConnectRequest request, NodeId target) {
            this.request = request;
            this.target = target;
            this.link = HubLinkWait.of(context);
        }

        @Override
        public void prepare() throws IOException {
            awaitLink();
        }

        @Override
        public Socket connect() throws IOException {
            awaitLink(); // again: the link may have gone since
            if (request.holdUntilConfirmed()) {
                return open(true);
            }
            return request.rivals().unheld(() -> open(false));
        }

        /** OPEN, held by the acceptor until {@link #confirm()} when {@code hold}, and the answer. */
        private Socket open(boolean hold) throws IOException {
            long asked = System.nanoTime();
            RoutedConnections.Opening o = connections.open(target, request.virtualPort(), hold);
            opening = o;
            if (cancelled) {
                connections.abandon(o, "the opener cancelled");
            }
            try {
                long waitMillis = request.deadline().remainingMillis() + DEADLINE_MARGIN_MILLIS;
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
                RoutedConnection c = o.answer().get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                VirtualSocketAddress local = new VirtualSocketAddress(context.localIdentity(), 0);
                VirtualSocketAddress remote = new VirtualSocketAddress(request.target(), request.virtualPort());
                RoutedSocket socket = new RoutedSocket(c, local, remote);
                if (hold) {
                    long roundTrip = System.nanoTime() - asked;
                    if (!request.rivals()
                            .heldMayWin(request.deadline(), Math.max(GIVE_WAY_WAIT_NANOS, 4 * roundTrip))) {
                        connections.abandon(o, "the opener gave way to another attempt");
                        throw new AttemptFailedException(
                                FailureScope.PATH, "gave way to an attempt node " + target + " had accepted unheld");
                    }
                    held = c;
                }
                return socket;
            } catch (TimeoutException e) {
                connections.abandon(o, "the opener timed out");
                throw new SocketTimeoutException(
                        "connect timed out waiting for node " + target + " to accept a relayed connection");
            } catch (CancellationException e) {
                throw new AttemptFailedException(FailureScope.PATH, "cancelled");
            } catch (ExecutionException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                throw new AttemptFailedException(FailureScope.PATH, String.valueOf(e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                connections.abandon(o, "the opener was interrupted");
                throw new AttemptFailedException(FailureScope.PATH, "interrupted");
            }
        }

        /**
         * Until the relay link is up, within the deadline. The link may be going down just as
         * the wait finds it up (its loop has not yet noticed the broken channel): then a moment
         * later the wait is for the next link.
         */
        private void awaitLink() throws IOException {
            while (!connections.isLinked()) {
                link.await(request.deadline(), "to route a connection to node " + target);
                if (cancelled) {
                    throw new AttemptFailedException(FailureScope.PATH, "cancelled");
                }
                if (!connections.isLinked()) {
                    if (request.deadline().isExpired()) {
                        throw new SocketTimeoutException(
                                "connect timed out waiting for a hub link to route a connection to node " + target);
                    }
                    try {
                        Thread.sleep(LINK_SETTLE_MILLIS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new InterruptedIOException(
                                "interrupted waiting for a hub link to route a connection to node " + target);
                    }
                }
            }
        }

        @Override
        public void confirm() throws IOException {
            RoutedConnection c = held;
            if (c != null) {
                connections.confirm(c);
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
            RoutedConnections.Opening o = opening;
            if (o != null) {
                connections.abandon(o, "the opener cancelled");
            }
        }
    }
}
