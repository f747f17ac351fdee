package io.traverse.hublink;

import io.netty.util.ReferenceCountUtil;
import io.traverse.hublink.transport.HubDataLink;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Ping;
import io.traverse.wire.Pong;
import io.traverse.wire.Reject;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayEncoder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
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
 * <p>Every frame goes to one outbox, written by group commit: the application thread that takes
 * the link's write lock writes everything waiting in gathering writes, and threads that find the
 * lock taken return at once, leaving their frames to it; they wait for the lock — the backpressure
 * of a hub that does not read — only when the outbox holds more than {@link #OUTBOX_LIMIT} bytes.
 * A thousand application threads each writing a frame under one lock convoyed on it for 100 ms a
 * turn; batching makes one system call of many frames. The reader thread, and the event
 * loop, must never block on a write — two nodes each blocked writing while neither reads would
 * wait for each other through the hub — so their frames (PONG, CREDIT for discarded input, RESET,
 * ACCEPT) are written by a writer thread, or by the next application thread that holds the lock:
 * each thread's frames leave in the order it sent them.
 */
final class DataLinkRelay {
    private static final Logger log = LoggerFactory.getLogger(DataLinkRelay.class);

    private final HubDataLink link;
    private final Consumer<Relay> frames;
    private final Consumer<String> failed;
    private final Runnable heard;
    /**
     * How many bytes may wait in the outbox before a sender waits for the write lock: enough for
     * a batch of full frames from many threads, little against the memory of a thousand connections.
     */
    static final int OUTBOX_LIMIT = 256 * 1024;

    /** A frame or message waiting to be written, with what it counts against {@link #OUTBOX_LIMIT}. */
    private record Outgoing(Object message, int bytes) {}

    /** What a PING or PONG counts against {@link #OUTBOX_LIMIT}. */
    private static final int CONTROL_BYTES = 64;

    private final Queue<Outgoing> outbox = new ConcurrentLinkedQueue<>();
    /** One gathering write's frames, refilled from the outbox (write lock held): no list per write. */
    private final List<Object> batch = new ArrayList<>(HubDataLink.MAX_BATCH);

    private final AtomicLong outboxBytes = new AtomicLong();
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
            defer(new Pong(ping.token()), CONTROL_BYTES);
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
            defer(new Ping(System.nanoTime()), CONTROL_BYTES);
        }
    }

    /**
     * Sends a frame. Every frame goes to the outbox; whichever thread holds the link's write lock
     * writes the whole outbox in gathering writes (group commit). A thread that finds the lock
     * taken leaves its frame to the holder and returns at once; it waits for the lock — the
     * backpressure of a hub that does not read — only when more than {@link #OUTBOX_LIMIT} bytes
     * wait already. The reader thread and {@code noBlocking} callers (event loops) never write:
     * the writer thread does. Takes over the frame.
     *
     * @return false if the link is gone (the frame is released); a frame left in the outbox when
     *     the link breaks later is dropped, as bytes in a kernel socket's buffer are
     */
    boolean send(Relay frame, boolean noBlocking) {
        if (failure != null) {
            frame.release();
            return false;
        }
        int bytes = RelayEncoder.HEADER_CAPACITY + frame.payloadLength();
        Thread me = Thread.currentThread();
        if (noBlocking || me == reader || me == writer) {
            defer(frame, bytes);
            return failure == null;
        }
        enqueue(frame, bytes);
        if (failure != null) {
            return false;
        }
        ReentrantLock w = link.writeLock();
        if (outboxBytes.get() > OUTBOX_LIMIT) {
            w.lock();
        } else if (!w.tryLock()) {
            return true; // the holder writes it: it looks at the outbox again after it lets go
        }
        writeHolding(w);
        return failure == null;
    }

    /** For the writer thread: from threads that must not write (the reader, event loops). */
    private void defer(Object message, int bytes) {
        enqueue(message, bytes);
        LockSupport.unpark(writer);
    }

    private void enqueue(Object message, int bytes) {
        outboxBytes.addAndGet(bytes);
        outbox.add(new Outgoing(message, bytes));
        if (failure != null) {
            drop();
        }
    }

    /**
     * Holding the write lock: writes the outbox until it is empty, lets go, and takes the lock
     * again if frames came meanwhile — a sender that found the lock taken left its frame here
     * and counts on this look.
     */
    private void writeHolding(ReentrantLock w) {
        do {
            try {
                writeOutbox();
            } catch (IOException e) {
                fail("the data link broke: " + e.getMessage());
            } finally {
                w.unlock();
            }
        } while (failure == null && !outbox.isEmpty() && w.tryLock());
    }

    /** Holding the write lock: sends what is in the outbox, {@link HubDataLink#MAX_BATCH} frames a write. */
    private void writeOutbox() throws IOException {
        Outgoing o;
        while (true) {
            batch.clear();
            long bytes = 0;
            while (batch.size() < HubDataLink.MAX_BATCH && (o = outbox.poll()) != null) {
                batch.add(o.message());
                bytes += o.bytes();
            }
            if (batch.isEmpty()) {
                return;
            }
            outboxBytes.addAndGet(-bytes);
            link.write(batch);
        }
    }

    private void writeDeferred() {
        ReentrantLock w = link.writeLock();
        while (failure == null) {
            if (outbox.isEmpty()) {
                LockSupport.park(this);
                continue;
            }
            w.lock();
            writeHolding(w);
        }
        drop();
    }

    private void drop() {
        Outgoing o;
        while ((o = outbox.poll()) != null) {
            outboxBytes.addAndGet(-o.bytes());
            ReferenceCountUtil.release(o.message());
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
