package io.traverse.hublink;

import io.netty.util.ReferenceCountUtil;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Ping;
import io.traverse.wire.Pong;
import io.traverse.wire.Reject;
import io.traverse.wire.Relay;
import java.io.IOException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who reads and who writes a {@link HubDataLink}. The link's own reader thread reads it, always,
 * and hands every frame to the receiver on that thread; the receiver only files it (a relayed
 * connection's inbox, bounded by the credit that connection granted) and wakes the one
 * application thread that waits for it. No application thread ever reads the link, so no
 * application — busy, stalled on one connection, or with a thousand threads blocked in reads —
 * can hold up the link's reading: the hub's keepalive always finds the link taking what it is
 * sent, and one slow reader stalls only its own connection (its credit runs out, nothing else).
 *
 * <p>Application threads write their frames themselves, one at a time under the link's write
 * lock, and block while the hub does not read (that is the backpressure). The reader thread, and
 * the event loop, must never block on a write — two nodes each blocked writing while neither reads
 * would wait for each other through the hub — so their frames (PONG, CREDIT for discarded input,
 * RESET, ACCEPT) go to a queue that a writer thread, or the next application write, sends first:
 * frames leave in the order they were sent, and control frames never wait behind more than the
 * one data frame being written.
 */
final class DataLinkRelay {
    private static final Logger log = LoggerFactory.getLogger(DataLinkRelay.class);

    private final HubDataLink link;
    private final Consumer<Relay> frames;
    private final Consumer<String> failed;
    private final Runnable heard;
    private final Queue<Object> deferred = new ConcurrentLinkedQueue<>();
    private final Thread reader;
    private final Thread writer;
    private volatile String failure;
    /** Whether the reader thread was started (guarded by this): if not, closing frees the read buffers. */
    private boolean readerStarted;

    /**
     * @param frames gets every RELAY frame, on the reader thread
     * @param failed told once, on whichever thread noticed, when the link broke (not after {@link #close})
     * @param heard told (on the reader thread) after every read that brought frames: the hub is alive
     */
    DataLinkRelay(HubDataLink link, String nodeName, Consumer<Relay> frames, Consumer<String> failed, Runnable heard) {
        this.link = link;
        this.frames = frames;
        this.failed = failed;
        this.heard = heard;
        this.reader = new Thread(this::readUntilFailed, "traverse-datalink-reader-" + nodeName);
        this.writer = new Thread(this::writeDeferred, "traverse-datalink-writer-" + nodeName);
        reader.setDaemon(true);
        writer.setDaemon(true);
    }

    /** Starts the writer thread: frames may be sent from now on. */
    void startWriting() {
        writer.start();
    }

    /** Starts the reader thread: frames are read from now on. */
    void startReading() {
        synchronized (this) {
            if (failure != null) {
                return;
            }
            readerStarted = true;
        }
        reader.start();
    }

    // ---- reading ----------------------------------------------------------------------------

    private void readUntilFailed() {
        try {
            while (failure == null) {
                if (link.read(0, this::handOut) > 0) {
                    heard.run();
                }
            }
        } catch (IOException | RuntimeException e) {
            fail(link.isClosed() && failure != null ? failure : "the data link broke: " + e.getMessage());
        } finally {
            link.releaseBuffers();
        }
    }

    private void handOut(LinkMessage message) {
        if (message instanceof Relay frame) {
            frames.accept(frame);
        } else if (message instanceof Ping ping) {
            defer(new Pong(ping.token()));
        } else if (message instanceof Pong) {
            // The answer to this node's keepalive: hearing it was the point (see ping()).
        } else if (message instanceof Reject r) {
            fail("the hub ended the data link: " + r.code() + (r.reason().isEmpty() ? "" : " (" + r.reason() + ")"));
        } else {
            ReferenceCountUtil.release(message);
        }
    }

    // ---- writing ----------------------------------------------------------------------------

    /**
     * Sends a keepalive PING on the data link, whatever the reading does: the hub hears from a
     * live node every keepalive interval even while the frames it sent (its own PINGs among them)
     * wait in this node's socket to be read. Any thread; never blocks.
     */
    void ping() {
        if (failure == null) {
            defer(new Ping(System.nanoTime()));
        }
    }

    /**
     * Sends a frame: written on this thread, or queued when this thread must not block (it reads
     * the link, or it is {@code noBlocking}, e.g. an event loop). Takes over the frame.
     *
     * @return false if the link is gone (the frame is released)
     */
    boolean send(Relay frame, boolean noBlocking) {
        if (failure != null) {
            frame.release();
            return false;
        }
        Thread me = Thread.currentThread();
        if (noBlocking || me == reader || me == writer) {
            defer(frame);
            return true;
        }
        ReentrantLock w = link.writeLock();
        w.lock();
        boolean handedOn = false;
        try {
            writeQueued();
            handedOn = true;
            link.write(frame);
            return true;
        } catch (IOException e) {
            if (!handedOn) {
                frame.release();
            }
            fail("the data link broke: " + e.getMessage());
            return false;
        } finally {
            w.unlock();
        }
    }

    private void defer(Object frame) {
        deferred.add(frame);
        LockSupport.unpark(writer);
        if (failure != null) {
            drop();
        }
    }

    /** Holding the write lock: sends what was queued. */
    private void writeQueued() throws IOException {
        Object m;
        while ((m = deferred.poll()) != null) {
            if (m instanceof Relay frame) {
                link.write(frame);
            } else {
                link.write((LinkMessage) m);
            }
        }
    }

    private void writeDeferred() {
        ReentrantLock w = link.writeLock();
        while (failure == null) {
            if (deferred.isEmpty()) {
                LockSupport.park(this);
                continue;
            }
            w.lock();
            try {
                writeQueued();
            } catch (IOException e) {
                fail("the data link broke: " + e.getMessage());
            } finally {
                w.unlock();
            }
        }
        drop();
    }

    private void drop() {
        Object m;
        while ((m = deferred.poll()) != null) {
            ReferenceCountUtil.release(m);
        }
    }

    // ---- the end ----------------------------------------------------------------------------

    private void fail(String reason) {
        if (end(reason)) {
            log.debug("Data link to hub at {} failed: {}", link.hub(), reason);
            failed.accept(reason);
        }
    }

    /** Closes the link because the hub link is gone or the node closes. */
    void close(String reason) {
        end(reason);
    }

    private boolean end(String reason) {
        boolean readerFrees;
        synchronized (this) {
            if (failure != null) {
                return false;
            }
            failure = reason;
            readerFrees = readerStarted;
        }
        // Closing wakes the reader from its select; it frees the read buffers on its way out.
        link.close();
        LockSupport.unpark(writer);
        if (!readerFrees) {
            link.releaseBuffers(); // the handshake's, if the link was never read
        }
        return true;
    }

    /** The connection itself (for tests). */
    HubDataLink link() {
        return link;
    }

    boolean isUp() {
        return failure == null;
    }
}
