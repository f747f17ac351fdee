package io.traverse.hublink;

import io.netty.util.ReferenceCountUtil;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Ping;
import io.traverse.wire.Pong;
import io.traverse.wire.Reject;
import io.traverse.wire.Relay;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who reads and who writes a {@link HubDataLink} (leader/follower). A thread that waits for
 * frames — an application thread in a read, or a writer waiting for credit — reads the link
 * itself when nobody else does (the leader) and hands each frame to the receiver on its own
 * thread, so the frame it waits for reaches it with no thread woken in between; others wait
 * until the leader hands out a batch or lets go. When no application thread has read for a short
 * grace period, the link's own reader thread leads, so that frames nobody waits for yet (an OPEN,
 * an ACCEPT, a PING) are read at once; it gives way as soon as an application thread wants to lead.
 *
 * <p>Application threads write their frames themselves, one at a time under the link's write
 * lock, and block while the hub does not read (that is the backpressure). A thread that reads
 * the link, and the event loop, must never block on a write — two nodes each blocked writing
 * while neither reads would wait for each other through the hub — so their frames (PONG, CREDIT
 * for discarded input, RESET, ACCEPT) go to a queue that a writer thread, or the next application
 * write, sends first: frames leave in the order they were sent.
 */
final class DataLinkRelay {
    /** How long after an application thread last read the link its own reader waits before reading. */
    static final long READER_GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
    /**
     * While one application thread keeps the lead (a long blocking read), the link's own reader
     * looks again after the grace period, then after twice that, and so on up to this: a thread
     * blocked in a long read costs the node 20 wake-ups a second, not 200. When that thread lets
     * go, the reader is woken, so a frame nobody waits for waits the grace period, not this.
     */
    static final long READER_MAX_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final Logger log = LoggerFactory.getLogger(DataLinkRelay.class);

    private final HubDataLink link;
    private final Consumer<Relay> frames;
    private final Consumer<String> failed;
    private final ReentrantLock lock = new ReentrantLock();
    /** Followers wait here for a batch handed out, the leader letting go, or a wake-up. */
    private final Condition changed = lock.newCondition();
    /** Guarded by lock: */
    private volatile Thread leader;
    private int followers;
    /** Counts hand-outs, let-gos and wake-ups; written under lock, read without it for a waiter's first look. */
    private volatile long changes;
    private long appReleasedNanos = System.nanoTime() - READER_GRACE_NANOS;
    /** When the link's own reader, waiting, looks next (guarded by lock; MAX_VALUE while it is not waiting). */
    private long readerWakeNanos = Long.MAX_VALUE;
    private final Queue<Object> deferred = new ConcurrentLinkedQueue<>();
    private final Thread reader;
    private final Thread writer;
    private volatile String failure;

    /**
     * @param frames gets every RELAY frame, on the reading thread
     * @param failed told once, on whichever thread noticed, when the link broke (not after {@link #close})
     */
    DataLinkRelay(HubDataLink link, String nodeName, Consumer<Relay> frames, Consumer<String> failed) {
        this.link = link;
        this.frames = frames;
        this.failed = failed;
        this.reader = new Thread(this::readWhenIdle, "traverse-datalink-reader-" + nodeName);
        this.writer = new Thread(this::writeDeferred, "traverse-datalink-writer-" + nodeName);
        reader.setDaemon(true);
        writer.setDaemon(true);
    }

    /** Starts the writer thread: frames may be sent from now on. */
    void startWriting() {
        writer.start();
    }

    /** Starts the link's own reader: frames are read from now on (by it or by waiting threads). */
    void startReading() {
        reader.start();
    }

    // ---- reading ----------------------------------------------------------------------------

    /** See {@link io.traverse.spi.RelayLink#readWhileWaiting}. */
    void readWhileWaiting(BooleanSupplier ready, long deadlineNanos) throws InterruptedIOException {
        Thread me = Thread.currentThread();
        while (true) {
            if (me.isInterrupted()) {
                // As a read blocked on a condition would: the selector does not block an interrupted thread.
                throw new InterruptedIOException("interrupted while waiting for the hub");
            }
            long seen = changes;
            if (ready.getAsBoolean() || failure != null || deadlineNanos != 0 && deadlineNanos - System.nanoTime() <= 0) {
                return;
            }
            if (waitOrLead(me, seen, deadlineNanos)) {
                try {
                    readBatch(deadlineNanos);
                } finally {
                    letGo(me);
                }
            }
        }
    }

    /** Takes the lead if nobody has it (true), or waits for a change (false). */
    private boolean waitOrLead(Thread me, long seen, long deadlineNanos) throws InterruptedIOException {
        lock.lock();
        try {
            if (failure != null || changes != seen) {
                return false;
            }
            if (leader == null) {
                leader = me;
                return true;
            }
            followers++;
            try {
                if (leader == reader) {
                    // The link's own reader gives way to a thread that waits for a frame (and
                    // stays away for the grace period, so that this thread gets the lead).
                    appReleasedNanos = System.nanoTime();
                    link.wakeReader();
                }
                while (changes == seen && leader != null && failure == null) {
                    if (deadlineNanos == 0) {
                        changed.await();
                    } else {
                        long left = deadlineNanos - System.nanoTime();
                        if (left <= 0) {
                            break;
                        }
                        changed.awaitNanos(left);
                    }
                }
            } finally {
                followers--;
            }
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the hub");
        } finally {
            lock.unlock();
        }
    }

    private void letGo(Thread me) {
        lock.lock();
        try {
            leader = null;
            changes++;
            boolean wakeReader = false;
            if (me != reader) {
                long now = System.nanoTime();
                appReleasedNanos = now;
                // The last reader lets go while the link's reader sleeps past the grace period (it backed
                // off during a long read): woken, it takes over when the grace ends, not up to 50 ms later,
                // so a frame nobody waits for yet (a relayed connection's OPEN) is not held up.
                wakeReader = followers == 0 && readerWakeNanos != Long.MAX_VALUE && readerWakeNanos - now > READER_GRACE_NANOS;
            }
            if (followers > 0 || wakeReader) {
                changed.signalAll();
            }
            if (failure != null) {
                link.releaseBuffers();
            }
        } finally {
            lock.unlock();
        }
    }

    private void readBatch(long deadlineNanos) {
        try {
            link.read(deadlineNanos, this::handOut);
        } catch (IOException | RuntimeException e) {
            fail(link.isClosed() && failure != null ? failure : "the data link broke: " + e.getMessage());
        }
    }

    private void handOut(LinkMessage message) {
        if (message instanceof Relay frame) {
            frames.accept(frame);
        } else if (message instanceof Ping ping) {
            defer(new Pong(ping.token()));
        } else if (message instanceof Reject r) {
            fail("the hub ended the data link: " + r.code() + (r.reason().isEmpty() ? "" : " (" + r.reason() + ")"));
        } else {
            ReferenceCountUtil.release(message);
        }
    }

    /** The link's own reader: leads while no application thread has read for the grace period. */
    private void readWhenIdle() {
        while (failure == null) {
            lock.lock();
            try {
                long poll = READER_GRACE_NANOS;
                long seen = changes;
                while (failure == null) {
                    long now = System.nanoTime();
                    if (leader == null && followers == 0) {
                        long idle = now - appReleasedNanos;
                        if (idle >= READER_GRACE_NANOS) {
                            break; // nobody has read for the grace period: this thread reads
                        }
                        readerWakeNanos = appReleasedNanos + READER_GRACE_NANOS;
                        changed.awaitNanos(READER_GRACE_NANOS - idle);
                        continue;
                    }
                    // Backs off only while one thread keeps the lead (a long read); while leads
                    // change hands (a stream being read) it looks every grace period, so that it
                    // takes over soon after the reading stops.
                    poll = changes != seen ? READER_GRACE_NANOS : Math.min(2 * poll, READER_MAX_POLL_NANOS);
                    seen = changes;
                    readerWakeNanos = now + poll;
                    changed.awaitNanos(poll);
                }
                readerWakeNanos = Long.MAX_VALUE;
                if (failure != null) {
                    break;
                }
                leader = reader;
            } catch (InterruptedException e) {
                break;
            } finally {
                lock.unlock();
            }
            try {
                readBatch(0);
            } finally {
                letGo(reader);
            }
        }
    }

    /** Makes waiting threads check their condition again; any thread. */
    void wakeWaiters() {
        lock.lock();
        try {
            changes++;
            if (followers > 0) {
                changed.signalAll();
            }
            Thread l = leader;
            if (l != null && l != Thread.currentThread()) {
                link.wakeReader();
            }
        } finally {
            lock.unlock();
        }
    }

    // ---- writing ----------------------------------------------------------------------------

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
        if (noBlocking || me == leader || me == reader || me == writer) {
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
        lock.lock();
        try {
            if (failure != null) {
                return false;
            }
            failure = reason;
            changes++;
            changed.signalAll();
            if (leader == null) {
                link.releaseBuffers();
            }
        } finally {
            lock.unlock();
        }
        link.close();
        LockSupport.unpark(writer);
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
