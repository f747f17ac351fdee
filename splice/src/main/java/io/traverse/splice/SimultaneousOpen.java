package io.traverse.splice;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * TCP simultaneous open (paper §3.3.3 "Splicing"): in each round ({@link SpliceSchedule}), from
 * the round's own local port (SO_REUSEADDR), a connect to each predicted public endpoint of the
 * peer at the round's instant. A SYN that meets a dropping router stays with the kernel, which
 * completes the connection when the peer's SYN arrives; one that meets a rejecting router ends
 * that round's try. The last turn fires again whenever refused (a few milliseconds later, spread
 * at random, so that two rejecting sides may still cross) until the window ends. A primed round
 * first opens this side's NATs with a SYN of a small TTL ({@link LowTtlSyns}), keeps its port
 * silent ({@link SilentPort}), and sends a fresh such SYN before every connect, which it repeats
 * whenever refused. The first connection wins; the others are closed.
 */
final class SimultaneousOpen {
    static final long RETRY_MIN_NANOS = 1_000_000;
    static final long RETRY_SPREAD_NANOS = 4_000_000;
    /**
     * A primed round waits longer before it connects again: it only waits for the peer to open
     * its NATs, which is no race, and each try costs a low-TTL SYN and a connect on both sides.
     */
    static final long PRIMED_RETRY_MIN_NANOS = 3_000_000;

    static final long PRIMED_RETRY_SPREAD_NANOS = 5_000_000;

    /**
     * One round: a local port, the peer's endpoints for it, and when to connect (on
     * {@link System#nanoTime()}). With {@code primeTtl} above 0 (a primed round), this side
     * sends a SYN with that TTL ({@link LowTtlSyns}) right before each connect, and keeps the
     * port silent meanwhile ({@link SilentPort}). A round that {@code retries} connects again a
     * few milliseconds after each refusal.
     */
    record Round(
            InetSocketAddress local, List<InetSocketAddress> remotes, long fireAtNanos, int primeTtl, boolean retries) {
        Round {
            remotes = List.copyOf(remotes);
            if (remotes.isEmpty()) {
                throw new IllegalArgumentException("no endpoint to splice with");
            }
            if (primeTtl < 0 || primeTtl > 255) {
                throw new IllegalArgumentException("a TTL is 1-255 (0: no priming): " + primeTtl);
            }
        }

        /** A turn: connects at its instant, once, or again whenever refused if {@code retries}. */
        Round(InetSocketAddress local, List<InetSocketAddress> remotes, long fireAtNanos, boolean retries) {
            this(local, remotes, fireAtNanos, 0, retries);
        }

        /** A turn that connects once. */
        Round(InetSocketAddress local, List<InetSocketAddress> remotes, long fireAtNanos) {
            this(local, remotes, fireAtNanos, false);
        }

        /** A primed round: connects again whenever refused. */
        Round(InetSocketAddress local, List<InetSocketAddress> remotes, long fireAtNanos, int primeTtl) {
            this(local, remotes, fireAtNanos, primeTtl, true);
        }

        boolean primes() {
            return primeTtl > 0;
        }
    }

    /** How many of the first turns must be refused before the primed rounds start. */
    static final int GATE_TURNS = 2;

    /**
     * A connect goes right after a SYN with a small TTL at most this old. A NAT's connection
     * tracking (Linux's, at its default strictness) keeps the sequence number of the last SYN it
     * let out; once the peer's SYN has come in, it lets this side's next SYN out only within the
     * peer's SYN window (at most 64 KiB) of it. Both come from the initial sequence number of the
     * same four-tuple, which grows by one every 64 ns: 64 KiB of it pass in about 4 ms.
     */
    static final long FRESH_PRIME_NANOS = TimeUnit.MICROSECONDS.toNanos(300);

    private final List<Round> rounds;
    private final long endNanos;
    private final Executor executor;
    private final LowTtlSyns lowTtlSyns;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Set<SilentPort> silentPorts = ConcurrentHashMap.newKeySet();
    private final CompletableFuture<Socket> winner = new CompletableFuture<>();
    /** Done when the first SYN is about to go out (or nothing will fire any more). */
    private final CompletableFuture<Void> firstSyn = new CompletableFuture<>();

    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger tries = new AtomicInteger();
    private final AtomicReference<IOException> lastFailure = new AtomicReference<>();
    private volatile boolean stopped;
    private volatile Consumer<Socket> lateConnections = SimultaneousOpen::closeQuietly;
    private volatile boolean keepConnectingAfterWinner;
    /**
     * The first turns: the primed rounds start only once every SYN of these has been refused,
     * the sign that both sides' NATs reset unsolicited SYNs. Where one side's NAT drops them the
     * turns get through and the primed rounds send nothing, which matters between NATs with no
     * router between them: a small TTL then reaches the peer, and a primed round could make a
     * connection that the peer's socket resets.
     */
    private final Set<Round> gateRounds;

    private final AtomicInteger unrefusedGateSyns;
    private final CompletableFuture<Void> primeGate = new CompletableFuture<>();

    /**
     * @param endNanos when to give up, on {@link System#nanoTime()}
     * @param lowTtlSyns sends the SYNs of the rounds that prime; null if none does
     */
    SimultaneousOpen(List<Round> rounds, long endNanos, Executor executor, LowTtlSyns lowTtlSyns) {
        if (rounds.isEmpty()) {
            throw new IllegalArgumentException("no round to fire");
        }
        if (lowTtlSyns == null && rounds.stream().anyMatch(Round::primes)) {
            throw new IllegalArgumentException("a round primes but nothing sends SYNs with a small TTL");
        }
        this.rounds = List.copyOf(rounds);
        this.endNanos = endNanos;
        this.executor = executor;
        this.lowTtlSyns = lowTtlSyns;
        this.gateRounds = Set.copyOf(
                rounds.stream().filter(r -> !r.primes()).limit(GATE_TURNS).toList());
        this.unrefusedGateSyns = new AtomicInteger(
                gateRounds.stream().mapToInt(r -> r.remotes().size()).sum());
        if (unrefusedGateSyns.get() == 0) {
            primeGate.complete(null);
        }
    }

    /** One round from one local port, retried until the window ends. */
    SimultaneousOpen(
            InetSocketAddress local,
            List<InetSocketAddress> remotes,
            long firstFireNanos,
            long endNanos,
            Executor executor) {
        this(List.of(new Round(local, remotes, firstFireNanos, true)), endNanos, executor, null);
    }

    /** The connected socket; the rest are closed. */
    Socket run() throws IOException {
        int tasks = rounds.stream().mapToInt(r -> r.remotes().size()).sum();
        running.set(tasks);
        for (int i = 0; i < rounds.size(); i++) {
            Round round = rounds.get(i);
            if (round.primes()) {
                try {
                    silentPorts.add(SilentPort.open(round.local()));
                } catch (IOException e) {
                    lastFailure.set(
                            e); // an early SYN from the peer draws a reset from this host: the round may still get
                    // through
                }
                if (stopped) {
                    stop(); // cancelled meanwhile: close what was opened after stop() ran
                }
            }
            for (InetSocketAddress remote : round.remotes()) {
                try {
                    executor.execute(() -> fire(round, remote));
                } catch (java.util.concurrent.RejectedExecutionException e) {
                    lastFailure.set(new IOException("no thread to fire from: " + e.getMessage()));
                    finished();
                }
            }
        }
        try {
            return winner.get(Math.max(0, endNanos - System.nanoTime()) + 50_000_000L, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            SocketTimeoutException late = new SocketTimeoutException(describeFailure());
            if (winner.completeExceptionally(late)) {
                throw late;
            }
            return winner.getNow(null); // connected in the very last moment
        } catch (ExecutionException e) {
            stop();
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            stop();
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted during the simultaneous open");
        } finally {
            if (!keepConnectingAfterWinner || !winner.isDone() || winner.isCompletedExceptionally()) {
                stop();
            }
        }
    }

    /**
     * Where connections that complete after the first go (default: closed). The target hands
     * them to the identity handshake too: the source may have taken one of them, and it sends
     * its handshake on the connection it took and closes the others.
     */
    void onLateConnection(Consumer<Socket> handler) {
        lateConnections = handler;
    }

    /**
     * Waits until the first SYN is on its way, at most {@code nanos}: the target answers only
     * then, so that in its rounds its SYN is out before the source's, whatever its threads' delays.
     */
    void awaitFirstSyn(long nanos) {
        try {
            firstSyn.get(nanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // answer anyway: the later rounds still have their chance
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The round of {@code socket}, by its local port; -1 if none. */
    int roundOf(Socket socket) {
        for (int i = 0; i < rounds.size(); i++) {
            if (rounds.get(i).local().getPort() == socket.getLocalPort()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The target's way: SYNs already sent keep waiting after the first connection, until
     * {@link #cancel()}. Both orders fire at once, so two rounds may connect, and the source may
     * take the one that completed here a moment after the first: closing it here would close the
     * source's connection. The target stops once the source's handshake shows which one it took.
     */
    void keepConnectingAfterWinner() {
        keepConnectingAfterWinner = true;
    }

    /** How many SYN rounds were fired in all (for the logs and the bench). */
    int tries() {
        return tries.get();
    }

    /** Ends {@link #run()} at once; nothing stays open. */
    void cancel() {
        winner.completeExceptionally(new SocketException("Socket closed"));
        stop();
    }

    private void stop() {
        stopped = true;
        firstSyn.complete(null);
        primeGate.complete(null);
        for (Socket s : open) {
            closeQuietly(s);
        }
        closeSilentPorts();
    }

    private void closeSilentPorts() {
        for (SilentPort p : silentPorts) {
            p.close();
        }
    }

    private void fire(Round round, InetSocketAddress remote) {
        long fireAt = round.fireAtNanos();
        long lastPrime = 0;
        boolean refusalCounted = false;
        try {
            if (round.primes() && !awaitPrimeGate()) {
                return;
            }
            while (!stopped && !winner.isDone()) {
                waitUntil(fireAt);
                if (round.primes()
                        && !stopped
                        && !winner.isDone()
                        && System.nanoTime() - lastPrime > FRESH_PRIME_NANOS) {
                    lastPrime =
                            primed(round, remote); // the first, or a reset closed this side's mappings since the last
                }
                long left = endNanos - System.nanoTime();
                if (left <= 0 || stopped || winner.isDone()) {
                    return;
                }
                Socket socket = new Socket();
                open.add(socket);
                tries.incrementAndGet();
                try {
                    socket.setReuseAddress(true);
                    if (round.primes()) {
                        socket.setOption(
                                java.net.StandardSocketOptions.SO_REUSEPORT, true); // beside the silent port's listener
                    }
                    socket.bind(round.local());
                    firstSyn.complete(null);
                    socket.connect(remote, (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                    open.remove(socket);
                    if (!winner.complete(socket)) {
                        lateConnections.accept(socket);
                    }
                    return;
                } catch (IOException e) {
                    open.remove(socket);
                    closeQuietly(socket);
                    lastFailure.set(e);
                    if (!refusalCounted && gateRounds.contains(round) && isRetryable(e)) {
                        refusalCounted = true;
                        if (unrefusedGateSyns.decrementAndGet() == 0) {
                            primeGate.complete(null);
                        }
                    }
                    if (!round.retries() || !isRetryable(e)) {
                        return; // a later round has fresh ports; no route: another try fails the same way
                    }
                    fireAt = System.nanoTime()
                            + (round.primes()
                                    ? PRIMED_RETRY_MIN_NANOS
                                            + ThreadLocalRandom.current().nextLong(PRIMED_RETRY_SPREAD_NANOS)
                                    : RETRY_MIN_NANOS
                                            + ThreadLocalRandom.current().nextLong(RETRY_SPREAD_NANOS));
                }
            }
        } finally {
            finished();
        }
    }

    /** False if the window ended, or this open stopped or won, before the primed rounds were let start. */
    private boolean awaitPrimeGate() {
        try {
            primeGate.get(Math.max(1, endNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | ExecutionException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return !stopped && !winner.isDone();
    }

    /**
     * Sends a SYN with the round's small TTL; returns when it went (or failed to).
     */
    private long primed(Round round, InetSocketAddress remote) {
        try {
            lowTtlSyns.send(round.local(), remote, round.primeTtl());
            firstSyn.complete(null);
        } catch (IOException e) {
            lastFailure.set(e); // the connect goes all the same; the next try sends another
        }
        return System.nanoTime();
    }

    /**
     * Sleeps until {@code nanoTime}, to within tens of microseconds: {@code Thread.sleep} rounds
     * to whole milliseconds, which is more than the lead between the two sides' SYNs.
     */
    private void waitUntil(long nanoTime) {
        long wait;
        while (!stopped && (wait = nanoTime - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
            if (Thread.currentThread().isInterrupted()) {
                stopped = true; // the module is closing
            }
        }
    }

    private void finished() {
        if (running.decrementAndGet() == 0) {
            closeSilentPorts(); // nothing connects from these ports any more (the target keeps its rounds going after a
            // winner)
            firstSyn.complete(null);
            winner.completeExceptionally(new SocketTimeoutException(describeFailure()));
        }
    }

    /**
     * True for what an early SYN meets (an RST: refused or reset) and for a local port still held
     * a moment by the try before; false for no route and the like, which the next try meets again.
     */
    static boolean isRetryable(IOException e) {
        if (e instanceof java.net.NoRouteToHostException || e instanceof SocketTimeoutException) {
            return false;
        }
        String message = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        return message.contains("refused") || message.contains("reset") || message.contains("already in use");
    }

    private String describeFailure() {
        IOException last = lastFailure.get();
        return "no SYNs crossed in " + rounds.size() + " round(s) from local port(s) "
                + rounds.stream().map(r -> String.valueOf(r.local().getPort())).toList() + " to "
                + rounds.get(rounds.size() - 1).remotes()
                + " in " + tries.get() + " tries"
                + (last == null ? "" : " (last: " + last.getMessage() + ")");
    }

    /**
     * Runs one simultaneous open on loopback, to a listener of its own, and closes what it made:
     * the code a splice runs is then warm before the first real one. Cold, it cost a node's
     * first splice 100-220 ms before its first SYN (measured on the everyday network),
     * 30-125 ms of them in the first constructor alone.
     *
     * @throws IOException if loopback cannot be used (then the first splice pays as before)
     */
    static void warmUp(Executor executor) throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket listener = new ServerSocket(0, 1, loopback)) {
            listener.setSoTimeout(
                    (int) TimeUnit.NANOSECONDS.toMillis(WARM_UP_WINDOW_NANOS)); // never a thread held for good
            long now = System.nanoTime();
            SimultaneousOpen open = new SimultaneousOpen(
                    new InetSocketAddress(loopback, 0),
                    List.of((InetSocketAddress) listener.getLocalSocketAddress()),
                    now,
                    now + WARM_UP_WINDOW_NANOS,
                    executor);
            try (Socket connected = open.run();
                    Socket accepted = listener.accept()) {
                // the pair did its job by connecting: closed at once
            }
        }
    }

    /** How long a warm-up may take at most: loopback answers in microseconds. */
    private static final long WARM_UP_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    static void closeQuietly(java.io.Closeable socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to do
        }
    }
}
