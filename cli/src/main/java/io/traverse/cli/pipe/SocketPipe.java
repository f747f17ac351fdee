package io.traverse.cli.pipe;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies bytes both ways between two connected sockets. The end of one side's stream becomes a
 * half-close ({@code shutdownOutput}) of the other, so the peer sees EOF and may keep writing; a
 * failure on either side resets both (linger 0), so a reset travels on too. The sockets are
 * closed when both directions are done. One thread per direction: the sockets are blocking
 * kernel sockets (direct and reverse connections are the JDK's own), and a command-line pipe
 * carries tens of connections, not thousands.
 */
final class SocketPipe {
    /** Looked up on first use: a logger made when picocli builds the command would fix the log level before {@code --log-level} applies. */
    private static Logger log() {
        return LoggerFactory.getLogger(SocketPipe.class);
    }

    private static final int BUFFER = 64 * 1024;

    private final Socket left;
    private final Socket right;
    private final String name;
    private final AtomicInteger directionsLeft = new AtomicInteger(2);
    private final AtomicBoolean reset = new AtomicBoolean();
    private final java.util.concurrent.atomic.AtomicLong leftToRight = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong rightToLeft = new java.util.concurrent.atomic.AtomicLong();
    private final long startNanos = System.nanoTime();
    private volatile String resetBecause;
    private final java.util.function.Consumer<Summary> onDone;
    private final java.util.function.LongConsumer leftToRightCopied;
    private final java.util.function.LongConsumer rightToLeftCopied;

    /** What a finished pipe did: bytes each way, how long it lasted, and the failure that reset it (null: both sides ended). */
    record Summary(long leftToRight, long rightToLeft, java.time.Duration lasted, String resetBecause) {}

    /**
     * A pipe that also tells {@code leftToRightCopied} and {@code rightToLeftCopied} of every chunk
     * as it is written (live byte counters); {@code onDone} gets the summary once both sockets are
     * closed. Nothing moves until {@link #start()}.
     */
    SocketPipe(
            Socket left,
            Socket right,
            String name,
            java.util.function.Consumer<Summary> onDone,
            java.util.function.LongConsumer leftToRightCopied,
            java.util.function.LongConsumer rightToLeftCopied) {
        this.left = left;
        this.right = right;
        this.name = name;
        this.onDone = onDone;
        this.leftToRightCopied = leftToRightCopied;
        this.rightToLeftCopied = rightToLeftCopied;
    }

    /** Starts piping; {@code onDone} gets the summary once both sockets are closed. */
    static void start(Socket left, Socket right, String name, java.util.function.Consumer<Summary> onDone) {
        new SocketPipe(left, right, name, onDone, n -> {}, n -> {}).start();
    }

    /** Starts piping. */
    void start() {
        thread(left, right, name + " >").start();
        thread(right, left, name + " <").start();
    }

    private Thread thread(Socket from, Socket to, String threadName) {
        java.util.concurrent.atomic.AtomicLong counter = from == left ? leftToRight : rightToLeft;
        java.util.function.LongConsumer copied = from == left ? leftToRightCopied : rightToLeftCopied;
        Thread t = new Thread(() -> copy(from, to, counter, copied), threadName);
        t.setDaemon(true);
        return t;
    }

    private void copy(
            Socket from,
            Socket to,
            java.util.concurrent.atomic.AtomicLong counter,
            java.util.function.LongConsumer copied) {
        byte[] buffer = new byte[BUFFER];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            for (int n; (n = in.read(buffer)) >= 0; ) {
                out.write(buffer, 0, n);
                counter.addAndGet(n);
                copied.accept(n);
            }
            to.shutdownOutput();
        } catch (IOException e) {
            if (reset.compareAndSet(false, true)) {
                resetBecause = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                log().debug("{}: {}; resetting both sides", name, e.toString());
                resetQuietly(left);
                resetQuietly(right);
            }
        } finally {
            if (directionsLeft.decrementAndGet() == 0) {
                closeQuietly(left);
                closeQuietly(right);
                onDone.accept(new Summary(
                        leftToRight.get(),
                        rightToLeft.get(),
                        java.time.Duration.ofNanos(System.nanoTime() - startNanos),
                        resetBecause));
            }
        }
    }

    /** Closes with linger 0: the peer gets a reset, not an end of stream. */
    static void resetQuietly(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // closed already
        }
        closeQuietly(socket);
    }

    static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // nothing left to do
        }
    }
}
