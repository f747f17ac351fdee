package io.traverse.splice;

import io.traverse.SideChannel;
import io.traverse.SideChannelException;
import io.traverse.config.HttpProxy;
import io.traverse.connect.KernelTls;
import io.traverse.identity.NodeId;
import io.traverse.protocol.Deadline;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.ProtocolException;
import io.traverse.security.PeerSessions;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.FailureScope;
import io.traverse.spi.HubLinkWait;
import io.traverse.spi.ModuleContext;
import io.traverse.splice.SpliceMessages.Answer;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The source's side: learns its endpoint, asks the target for its own, and fires on the answer. */
final class SpliceModule implements ConnectionModule {
    private static final Logger log = LoggerFactory.getLogger(SpliceModule.class);

    /** Splices (either side) and their extra SYN threads at once at most; beyond, a splice is refused. */
    static final int MAX_THREADS = 256;
    /** How long SYNs are fired at most: long enough for many retries, short enough to free the port soon. */
    static final long SYN_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** How long a held splice that got through waits at least for an unheld rival's answer. */
    static final long GIVE_WAY_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final ModuleContext context;
    private final ThreadPoolExecutor splices;
    private final SpliceEndpoints endpoints;
    private final SideChannel.Registration service;
    /** Sends the SYNs with a small TTL of the primed rounds (both sides'); null where no TTL can be set. */
    private final LowTtlSyns lowTtlSyns = LowTtlSyns.available() ? new LowTtlSyns() : null;
    /**
     * The splice requests' recent round trips through the side channel (less the target's
     * processing): what the target's lead in the source's rounds must cover.
     */
    private final SideChannelRoundTrips roundTrips = new SideChannelRoundTrips();

    SpliceModule(ModuleContext context) {
        this.context = context;
        this.splices = new ThreadPoolExecutor(0, MAX_THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "traverse-splice");
            t.setDaemon(true);
            return t;
        });
        SpliceSettings settings = SpliceSettings.of(context.config());
        this.endpoints = new SpliceEndpoints(
                context::hubLinkStatus,
                PublicEchoHubs.fromDirectory(
                        context.hubDirectory(), context.config().hubTimeout()),
                PublicEchoHubs.ECHO_TIMEOUT,
                context.config().bindAddress().orElse(null),
                settings.prediction(),
                settings.ports(),
                splices);
        this.service = context.sideChannel()
                .register(SpliceMessages.SERVICE, new SpliceService(context, endpoints, splices, lowTtlSyns));
        // Learn the NAT as soon as the link is up, so the first splice (either side) starts without the two echoes,
        // and warm the splice code, so that it does not spend the first splice's first 100-200 ms.
        context.hubLinkUp()
                .thenRunAsync(this::learnNat, splices)
                .handle((learnt, failure) -> null)
                .thenRunAsync(this::warmUp, splices)
                .exceptionally(e -> null);
    }

    private void warmUp() {
        try {
            SimultaneousOpen.warmUp(splices);
        } catch (IOException e) {
            log.debug("Could not warm the splice code up on loopback: {}", e.getMessage());
        }
    }

    private void learnNat() {
        try {
            endpoints.learn(Deadline.after(context.config().hubTimeout()));
        } catch (IOException e) {
            log.debug("Could not learn this node's NAT yet: {}", e.getMessage());
        }
    }

    @Override
    public String name() {
        return SpliceModuleProvider.NAME;
    }

    @Override
    public ConnectionAttempt plan(ConnectRequest request) throws AttemptFailedException {
        NodeId target = HubLinkWait.targetNode(request, "to splice with through the hubs");
        HubLinkWait.requireExpected(context, "to splice with node " + target);
        Optional<HttpProxy> proxyOnly = context.httpOnlyWayOut();
        if (proxyOnly.isPresent()) {
            // SYNs from a node that only an HTTP proxy lets out never leave its site.
            throw AttemptFailedException.notApplicable(
                    FailureScope.MODULE,
                    "this node's only way out is HTTP proxy " + proxyOnly.get().authority()
                            + ": its SYNs cannot reach node " + target);
        }
        return new SpliceAttempt(request, target);
    }

    @Override
    public void close() {
        service.close();
        splices.shutdownNow();
        if (lowTtlSyns != null) {
            lowTtlSyns.close();
        }
    }

    private final class SpliceAttempt implements ConnectionAttempt {
        private final ConnectRequest request;
        private final NodeId target;
        private final HubLinkWait link;
        private volatile CompletableFuture<byte[]> answer;
        private volatile SimultaneousOpen open;
        /** The spliced connection while its handshake runs: closed by a cancel, so the target never queues it. */
        private volatile Socket handshaking;

        private volatile boolean cancelled;
        private volatile String stage = null;
        /** The spliced connection its target holds until {@link #confirm()}, if it was asked to. */
        private volatile Socket held;
        /** The key proof's Finished, sent right after CONFIRM; null without a proof. */
        private volatile byte[] heldFinished;

        SpliceAttempt(ConnectRequest request, NodeId target) {
            this.request = request;
            this.target = target;
            this.link = HubLinkWait.of(context);
        }

        /**
         * Splice cannot answer sooner than about three round trips (its request through the hubs,
         * SYNs crossing, a handshake), and its first turns often miss: the next module (routed)
         * starts beside it at once instead of a stagger later. A relay that gets through first
         * still waits its own setup time for splice, and splice, left running when the relay wins,
         * is cached for the next connection (a first connection within about a round
         * trip of the relay's).
         */
        @Override
        public boolean longShot() {
            return true;
        }

        @Override
        public void prepare() throws IOException {
            link.await(request.deadline(), "to splice with node " + target);
            // A cold node's public echo is usually a few milliseconds away when the chain gets here: not under way yet,
            // so the next module (routed) waits for it too, at most one stagger (the echo may never come), after which
            // connect() waits for the rest within the deadline while routed races it.
            stage = "waiting for a public hub's echo of this node's endpoint";
            endpoints.awaitSearchUnderWay(request.deadline(), context.config().connectStagger());
        }

        @Override
        public Socket connect() throws IOException {
            stage = "learning this node's public endpoint";
            SpliceEndpoints.Endpoint mine = endpoints.next(request.deadline());
            checkNotCancelled();
            int millis = request.deadline().remainingMillis();
            if (millis <= 0) {
                throw new SocketTimeoutException("connect timed out before asking node " + target + " to splice");
            }
            byte[] ask = SpliceMessages.encode(new SpliceMessages.Request(
                    request.probe(),
                    request.virtualPort(),
                    millis,
                    TimeUnit.NANOSECONDS.toMicros(roundTrips.estimateNanos().orElse(mine.hubRttNanos())),
                    mine.toMessage()));
            stage = "waiting for node " + target + " to answer the splice request";
            long asked = System.nanoTime();
            CompletableFuture<byte[]> pending =
                    context.sideChannel().request(target, SpliceMessages.SERVICE, ask, Duration.ofMillis(millis));
            answer = pending;
            if (cancelled) {
                pending.cancel(false);
            }
            Answer ready = awaitAnswer(pending);
            long now = System.nanoTime();
            long roundTrip = Math.max(0, now - asked - TimeUnit.MICROSECONDS.toNanos(ready.processingMicros()));
            roundTrips.add(roundTrip);
            // Fire on the answer's arrival: the target counts from sending it (SpliceSchedule).
            long end = now + Math.min(request.deadline().remainingNanos(), SYN_WINDOW_NANOS);
            SimultaneousOpen syns = new SimultaneousOpen(
                    SpliceSchedule.rounds(
                            endpoints.bindAddress(),
                            mine.localPorts(),
                            ready.endpoint(),
                            now,
                            true,
                            TimeUnit.MICROSECONDS.toNanos(ready.fireDelayMicros()),
                            lowTtlSyns != null),
                    end,
                    splices,
                    lowTtlSyns);
            open = syns;
            checkNotCancelled();
            stage = "firing SYNs at " + ready.endpoint() + " from local ports " + mine.localPorts();
            Socket socket;
            try {
                socket = syns.run();
            } catch (SocketTimeoutException e) {
                if (request.deadline().remainingMillis() <= 0) {
                    throw e;
                }
                throw new AttemptFailedException(FailureScope.PATH, e.getMessage());
            }
            long connected = System.nanoTime();
            boolean finished = false;
            handshaking = socket;
            try {
                checkNotCancelled(); // lost the race meanwhile: close before the target queues it for its application
                stage = "waiting for node " + target + " to answer the handshake on the spliced connection";
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(Math.max(1, request.deadline().remainingMillis()));
                handshake(socket);
                socket.setSoTimeout(0);
                socket.setTcpNoDelay(false);
                finished = true;
                long done = System.nanoTime();
                log.debug(
                        "Spliced with node {} from local port {} to {} (round {}, {} SYN tries; answer after {} us, side-channel round trip "
                                + "{} us, connected {} us after the answer, handshake {} us)",
                        target,
                        socket.getLocalPort(),
                        socket.getRemoteSocketAddress(),
                        syns.roundOf(socket),
                        syns.tries(),
                        (now - asked) / 1000,
                        roundTrip / 1000,
                        (connected - now) / 1000,
                        (done - connected) / 1000);
                return socket;
            } catch (IOException e) {
                throw cancelled ? new AttemptFailedException(FailureScope.PATH, "cancelled") : e;
            } finally {
                handshaking = null;
                if (!finished) {
                    SimultaneousOpen.closeQuietly(socket);
                }
            }
        }

        /**
         * The identity handshake as a dialler; held by the target until {@link #confirm()} when a
         * rival attempt runs (an unheld one gets precedence, as in the direct module).
         */
        private void handshake(Socket socket) throws IOException {
            IdentityHandshake.Kind kind =
                    request.probe() ? IdentityHandshake.Kind.PROBE : IdentityHandshake.Kind.CONNECT;
            PeerSessions sessions = context.peerSessions().orElse(null);
            KernelTls tls = context.kernelTls().orElse(null);
            boolean askTls = context.config().encryptKernelSockets();
            if (request.probe()) {
                SpliceHandshake.asSource(
                        socket,
                        kind,
                        request.virtualPort(),
                        request.target(),
                        context.localIdentity(),
                        false,
                        null,
                        null,
                        false);
                return;
            }
            if (request.holdUntilConfirmed()) {
                held = socket;
                long asked = System.nanoTime();
                heldFinished = SpliceHandshake.asSource(
                        socket,
                        kind,
                        request.virtualPort(),
                        request.target(),
                        context.localIdentity(),
                        true,
                        sessions,
                        tls,
                        askTls);
                long roundTrip = System.nanoTime() - asked;
                if (!request.rivals().heldMayWin(request.deadline(), Math.max(GIVE_WAY_WAIT_NANOS, 4 * roundTrip))) {
                    throw new AttemptFailedException(
                            FailureScope.PATH, "gave way to an attempt node " + target + " had accepted unheld");
                }
                return;
            }
            request.rivals().unheld(() -> {
                SpliceHandshake.asSource(
                        socket,
                        kind,
                        request.virtualPort(),
                        request.target(),
                        context.localIdentity(),
                        false,
                        sessions,
                        tls,
                        askTls);
                return null;
            });
        }

        @Override
        public void confirm() throws IOException {
            Socket s = held;
            if (s != null) {
                byte[] finished = heldFinished;
                if (finished == null) {
                    s.getOutputStream().write(IdentityHandshake.CONFIRM);
                } else {
                    byte[] out = new byte[1 + finished.length];
                    out[0] = (byte) IdentityHandshake.CONFIRM;
                    System.arraycopy(finished, 0, out, 1, finished.length);
                    s.getOutputStream().write(out); // CONFIRM, then the key proof's Finished
                }
            }
        }

        private Answer awaitAnswer(CompletableFuture<byte[]> pending) throws IOException {
            byte[] bytes;
            try {
                bytes = pending.get(Math.max(1, request.deadline().remainingMillis()), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new SocketTimeoutException(
                        "connect timed out waiting for node " + target + " to answer the splice request");
            } catch (CancellationException e) {
                throw new AttemptFailedException(FailureScope.PATH, "cancelled");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                String why = cause instanceof SideChannelException s
                        ? s.failure() + ": " + s.getMessage()
                        : String.valueOf(cause.getMessage());
                FailureScope scope =
                        cause instanceof SideChannelException s && s.failure() == SideChannelException.Failure.TIMEOUT
                                ? FailureScope.PATH
                                : FailureScope.MODULE;
                throw new AttemptFailedException(scope, "could not ask node " + target + " to splice: " + why);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException(
                        "interrupted waiting for node " + target + " to answer the splice request");
            }
            Answer a;
            try {
                a = SpliceMessages.decodeAnswer(bytes);
            } catch (ProtocolException e) {
                throw new AttemptFailedException(
                        FailureScope.MODULE,
                        "node " + target + " answered the splice request wrongly: " + e.getMessage());
            }
            return switch (a.status()) {
                case READY -> a;
                case TARGET_ANSWER -> throw new AttemptFailedException(FailureScope.TARGET, a.reason());
                case UNSPLICEABLE -> throw new AttemptFailedException(FailureScope.MODULE, a.reason());
                case BAD_REQUEST ->
                    throw new AttemptFailedException(
                            FailureScope.MODULE, "node " + target + " refused to splice: " + a.reason());
            };
        }

        private void checkNotCancelled() throws AttemptFailedException {
            if (cancelled) {
                throw new AttemptFailedException(FailureScope.PATH, "cancelled");
            }
        }

        @Override
        public String progress() {
            String waiting = link.progress();
            return waiting != null ? waiting : stage;
        }

        @Override
        public void cancel() {
            cancelled = true;
            link.cancel();
            CompletableFuture<byte[]> pending = answer;
            if (pending != null) {
                pending.cancel(false);
            }
            SimultaneousOpen syns = open;
            if (syns != null) {
                syns.cancel();
            }
            Socket spliced = handshaking;
            if (spliced != null) {
                SimultaneousOpen.closeQuietly(spliced);
            }
        }
    }
}
