package io.traverse.cli.pipe;

import io.traverse.Traverse;
import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A running {@code expose} or {@code forward}: its node, the listener it accepts on, and how
 * many connections it pipes now. Closing it closes the listener, resets the piped connections
 * and closes the node.
 */
final class RunningPipe<L extends Closeable> implements Closeable {
    private final Traverse traverse;
    private final L listener;
    private final AtomicInteger open = new AtomicInteger();
    private final java.util.Set<java.net.Socket> piped = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    RunningPipe(Traverse traverse, L listener) {
        this.traverse = traverse;
        this.listener = listener;
    }

    Traverse traverse() {
        return traverse;
    }

    L listener() {
        return listener;
    }

    int openConnections() {
        return open.get();
    }

    /**
     * Pipes one more pair of sockets, counted until both are closed, then logs one line for it:
     * {@code what} (who connected to what, and by which module), bytes each way, how long, how it
     * ended. After {@link #close()}, resets them instead.
     */
    void pipe(java.net.Socket a, java.net.Socket b, String name, String what) {
        open.incrementAndGet();
        piped.add(a);
        piped.add(b);
        SocketPipe.start(a, b, name, summary -> {
            piped.remove(a);
            piped.remove(b);
            open.decrementAndGet();
            org.slf4j.LoggerFactory.getLogger(RunningPipe.class).info("{}: {} bytes from the client, {} bytes back, {} ms, {}", what,
                    summary.leftToRight(), summary.rightToLeft(), summary.lasted().toMillis(),
                    summary.resetBecause() == null ? "closed" : "reset (" + summary.resetBecause() + ")");
        });
        if (closed) {
            SocketPipe.resetQuietly(a);
            SocketPipe.resetQuietly(b);
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
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            SocketPipe.closeQuietly(this);
            stopped.countDown();
        }, threadName));
        stopped.await();
    }

    /** Closes the listener, resets every connection still piped, and closes the node. */
    @Override
    public void close() throws IOException {
        closed = true;
        try {
            listener.close();
        } finally {
            for (java.net.Socket s : piped) {
                SocketPipe.resetQuietly(s);
            }
            traverse.close();
        }
    }
}
