package io.traverse.splice;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
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

/**
 * TCP simultaneous open (paper §3.3.3 "Splicing"): from one bound local port (SO_REUSEADDR),
 * a connect to each predicted public endpoint of the peer, first at the agreed instant, then
 * again whenever one is refused. A SYN that reaches the peer's router before the peer's own SYN
 * left meets an RST where that router rejects; the peer's SYN has then left, so the next try a
 * few milliseconds later (spread at random, so two rejecting sides fall out of step) finds its
 * conntrack entry and crosses. A SYN dropped on the way stays with the kernel, which completes the
 * connection when the peer's SYN arrives. The first connection wins; the others are closed.
 */
final class SimultaneousOpen {
    static final long RETRY_MIN_NANOS = 1_000_000;
    static final long RETRY_SPREAD_NANOS = 4_000_000;

    private final InetSocketAddress local;
    private final List<InetSocketAddress> remotes;
    private final long firstFireNanos;
    private final long endNanos;
    private final Executor executor;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final CompletableFuture<Socket> winner = new CompletableFuture<>();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger tries = new AtomicInteger();
    private final AtomicReference<IOException> lastFailure = new AtomicReference<>();
    private volatile boolean stopped;

    /**
     * @param firstFireNanos the agreed instant, on {@link System#nanoTime()}
     * @param endNanos       when to give up, on {@link System#nanoTime()}
     */
    SimultaneousOpen(InetSocketAddress local, List<InetSocketAddress> remotes, long firstFireNanos, long endNanos, Executor executor) {
        if (remotes.isEmpty()) {
            throw new IllegalArgumentException("no endpoint to splice with");
        }
        this.local = local;
        this.remotes = List.copyOf(remotes);
        this.firstFireNanos = firstFireNanos;
        this.endNanos = endNanos;
        this.executor = executor;
    }

    /** The connected socket; the rest are closed. */
    Socket run() throws IOException {
        running.set(remotes.size());
        for (int i = 1; i < remotes.size(); i++) {
            InetSocketAddress remote = remotes.get(i);
            executor.execute(() -> fire(remote));
        }
        fire(remotes.get(0));
        try {
            return winner.get(Math.max(0, endNanos - System.nanoTime()) + 50_000_000L, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            SocketTimeoutException late = new SocketTimeoutException(describeFailure());
            if (winner.completeExceptionally(late)) {
                throw late;
            }
            return winner.getNow(null); // connected in the very last moment
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted during the simultaneous open");
        } finally {
            stop();
        }
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
        for (Socket s : open) {
            closeQuietly(s);
        }
    }

    private void fire(InetSocketAddress remote) {
        long fireAt = firstFireNanos;
        try {
            while (!stopped && !winner.isDone()) {
                long wait = fireAt - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                long left = endNanos - System.nanoTime();
                if (left <= 0 || stopped) {
                    return;
                }
                Socket socket = new Socket();
                open.add(socket);
                tries.incrementAndGet();
                try {
                    socket.setReuseAddress(true);
                    socket.bind(local);
                    socket.connect(remote, (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                    open.remove(socket);
                    if (!winner.complete(socket)) {
                        closeQuietly(socket);
                    }
                    return;
                } catch (IOException e) {
                    open.remove(socket);
                    closeQuietly(socket);
                    lastFailure.set(e);
                    if (!isRetryable(e)) {
                        return; // no route, address not available: another try fails the same way
                    }
                    fireAt = System.nanoTime() + RETRY_MIN_NANOS + ThreadLocalRandom.current().nextLong(RETRY_SPREAD_NANOS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (running.decrementAndGet() == 0) {
                winner.completeExceptionally(new SocketTimeoutException(describeFailure()));
            }
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
        return "no SYNs crossed with " + remotes + " from local port " + local.getPort() + " in " + tries.get() + " tries"
                + (last == null ? "" : " (last: " + last.getMessage() + ")");
    }

    static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing left to do
        }
    }
}
