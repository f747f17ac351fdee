package io.traverse.cli.pipe;

import io.traverse.Traverse;
import java.io.Closeable;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A running {@code expose} or {@code forward}: its node, the listener it accepts on, and how
 * many connections it pipes now. Closing it closes the listener and the node.
 */
final class RunningPipe<L extends Closeable> implements Closeable {
    private final Traverse traverse;
    private final L listener;
    private final AtomicInteger open = new AtomicInteger();

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

    /** Pipes one more pair of sockets, counted until both are closed. */
    void pipe(java.net.Socket a, java.net.Socket b, String name) {
        open.incrementAndGet();
        SocketPipe.start(a, b, name, open::decrementAndGet);
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

    @Override
    public void close() throws IOException {
        try {
            listener.close();
        } finally {
            traverse.close();
        }
    }
}
