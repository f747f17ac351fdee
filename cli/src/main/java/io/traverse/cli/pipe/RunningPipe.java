package io.traverse.cli.pipe;

import io.traverse.Traverse;
import java.io.Closeable;
import java.io.IOException;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.LoggerFactory;

/**
 * A running exposed or forwarded service: the node it uses, the listener it accepts on, the
 * connections it pipes now and the counters it reports to. {@link #stopAccepting()} closes the
 * listener and lets piped connections finish; {@link #close()} also resets them, and closes the
 * node when this pipe owns it (a single {@code expose} or {@code forward}; an agent's services
 * share one node).
 */
public final class RunningPipe<L extends Closeable> implements Closeable {
    private final Traverse traverse;
    private final L listener;
    private final PipeCounters counters;
    private final boolean ownsNode;
    private final AtomicInteger open = new AtomicInteger();
    private final Set<Socket> piped = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    RunningPipe(Traverse traverse, L listener, PipeCounters counters, boolean ownsNode) {
        this.traverse = traverse;
        this.listener = listener;
        this.counters = counters;
        this.ownsNode = ownsNode;
    }

    public Traverse traverse() {
        return traverse;
    }

    public L listener() {
        return listener;
    }

    public int openConnections() {
        return open.get();
    }

    PipeCounters counters() {
        return counters;
    }

    /**
     * Pipes one more pair of sockets ({@code client} is the one accepted on the listener), counted
     * until both are closed, then logs one line for it: {@code what} (who connected to what, and
     * by which module), bytes each way, how long, how it ended. After {@link #close()}, resets
     * them instead.
     */
    void pipe(Socket client, Socket other, String name, String what) {
        open.incrementAndGet();
        counters.opened();
        piped.add(client);
        piped.add(other);
        new SocketPipe(
                        client,
                        other,
                        name,
                        summary -> {
                            piped.remove(client);
                            piped.remove(other);
                            open.decrementAndGet();
                            counters.closed();
                            LoggerFactory.getLogger(RunningPipe.class)
                                    .info(
                                            "{}: {} bytes from the client, {} bytes back, {} ms, {}",
                                            what,
                                            summary.leftToRight(),
                                            summary.rightToLeft(),
                                            summary.lasted().toMillis(),
                                            summary.resetBecause() == null
                                                    ? "closed"
                                                    : "reset (" + summary.resetBecause() + ")");
                        },
                        counters::fromClient,
                        counters::toClient)
                .start();
        if (closed) {
            SocketPipe.resetQuietly(client);
            SocketPipe.resetQuietly(other);
        }
    }

    /** After an accept error other than the listener closing: a moment's pause, so that a persistent one (out of file descriptors) does not spin. */
    void pauseAfterAcceptError() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Blocks until the JVM is told to stop (SIGTERM, Ctrl-C); the shutdown hook closes this first. */
    void runUntilStopped(String threadName) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            SocketPipe.closeQuietly(this);
                            stopped.countDown();
                        },
                        threadName));
        stopped.await();
    }

    /** Closes the listener (an exposed name is released with it); connections piped now go on until they end. */
    public void stopAccepting() {
        SocketPipe.closeQuietly(listener);
    }

    /** Closes the listener, resets every connection still piped, and closes the node if this pipe owns it. */
    @Override
    public void close() throws IOException {
        closed = true;
        try {
            listener.close();
        } finally {
            for (Socket s : piped) {
                SocketPipe.resetQuietly(s);
            }
            if (ownsNode) {
                traverse.close();
            }
        }
    }
}
