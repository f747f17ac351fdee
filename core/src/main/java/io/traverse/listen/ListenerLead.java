package io.traverse.listen;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who takes connections from the node's one listening socket (leader/follower). An application
 * thread waiting in {@code accept()} on any virtual port leads when nobody else does: it waits on
 * the listening socket itself, accepts, answers the handshake ({@link HandshakeLoop#submit}) and
 * puts the connection in its virtual port's backlog, so the connection for its own port reaches it
 * with no hand-off between threads, as a plain {@code ServerSocket} is woken by the kernel
 * directly. Other waiting application threads follow (wait on their backlog) and one is promoted
 * when the leader leaves. The acceptor thread leads when the lead has been vacant for
 * {@link #GRACE_NANOS} (no application thread waits: connections for any port are still answered
 * within that), and yields to an application thread that comes to wait.
 *
 * <p>The listening socket is non-blocking and waited on through one selector that only the leader
 * uses: an interrupted application thread only wakes from the selector (a thread interrupted in a
 * blocking {@code ServerSocketChannel.accept()} would close the node's listening socket), and a
 * leader is woken for its port's close, a delivery by another thread, or its {@code SO_TIMEOUT}.
 */
final class ListenerLead {
    private static final Logger log = LoggerFactory.getLogger(ListenerLead.class);
    /** How long the lead may stay vacant before the acceptor thread takes it. */
    static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** Connections accepted per wake-up at most, so the leader's own connection is not held up by a burst. */
    private static final int BATCH = 64;

    private final ServerSocketChannel server;
    private final Selector selector;
    private final HandshakeLoop handshakes;
    private final ReentrantLock lock = new ReentrantLock();
    // Written under lock; read without it by deliveries and closes.
    private volatile Thread leader;
    // Guarded by lock.
    private long vacantSince;
    /** Counts every taking of the lead: the acceptor tells a busy leader from one idle in its wait. */
    private long epoch;

    private boolean acceptorSleeping;
    /** Backlogs with application threads that wait while another leads, in order of arrival. */
    private final Set<AcceptQueue> followed = new LinkedHashSet<>();
    // Read without the lock by deliveries and closes.
    private volatile AcceptQueue leaderQueue;
    private volatile boolean acceptorToYield;
    private volatile Thread acceptor;
    private volatile boolean closed;

    ListenerLead(ServerSocketChannel server, HandshakeLoop handshakes) throws IOException {
        this.server = server;
        this.handshakes = handshakes;
        Selector s = Selector.open();
        try {
            server.configureBlocking(false);
            server.register(s, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
        this.selector = s;
        this.vacantSince = System.nanoTime() - GRACE_NANOS;
    }

    /**
     * An application thread with nothing in {@code queue}'s backlog asks to lead; false means it
     * follows (waits on its backlog, which is signalled when it is promoted). Called holding the
     * queue's lock.
     */
    boolean tryLead(AcceptQueue queue) {
        boolean wakeAcceptor = false;
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            if (leader == null) {
                leader = Thread.currentThread();
                leaderQueue = queue;
                epoch++;
                return true;
            }
            followed.add(queue);
            if (leader == acceptor && !acceptorToYield) {
                acceptorToYield = true;
                wakeAcceptor = true;
            }
        } finally {
            lock.unlock();
        }
        if (wakeAcceptor) {
            selector.wakeup();
        }
        return false;
    }

    /**
     * The leading application thread waits on the listening socket up to {@code timeoutNanos}
     * ({@link Long#MAX_VALUE}: no limit) and takes what has arrived; then it leaves the lead.
     */
    void serve(AcceptQueue own, long timeoutNanos) throws IOException {
        try {
            if (timeoutNanos == Long.MAX_VALUE) {
                selector.select();
            } else {
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos + 999_999)));
            }
            selector.selectedKeys().clear();
            if (own != null && Thread.currentThread().isInterrupted()) {
                return; // the interrupt is for this thread's accept(): the next leader takes what has arrived
            }
            acceptAvailable(own);
        } catch (ClosedSelectorException | ClosedChannelException e) {
            // the node is closing; its server sockets close too
        } catch (IOException e) {
            if (closed) {
                return;
            }
            // Typically "Too many open files": back off instead of spinning, but not past the
            // application's accept timeout.
            long backOffMillis = Math.min(100, Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeoutNanos)));
            log.warn("Accepting a connection failed: {}; retrying in {} ms", e.getMessage(), backOffMillis);
            try {
                Thread.sleep(backOffMillis);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("accept interrupted");
            }
        } finally {
            release();
        }
    }

    /**
     * Accepts what is waiting, up to {@link #BATCH}; an application thread stops as soon as its own
     * backlog has a connection (the selector reports the rest to the next leader at once).
     */
    private void acceptAvailable(AcceptQueue own) throws IOException {
        for (int i = 0; i < BATCH; i++) {
            SocketChannel channel = server.accept();
            if (channel == null) {
                return;
            }
            if (own != null) {
                // An application thread may be interrupted at any moment, and an interrupt during a
                // blocking read or write closes the channel: another client's connection. Non-blocking
                // I/O is not interruptible (two mode switches; the acceptor thread, which nobody
                // interrupts, keeps the blocking fast path).
                channel.configureBlocking(false);
            }
            handshakes.submit(channel);
            if (own != null && own.hasReady()) {
                return;
            }
        }
    }

    /** Leaves the lead; promotes a follower if one waits, wakes a sleeping acceptor thread if none does. */
    private void release() {
        List<AcceptQueue> toPromote;
        boolean wakeAcceptor = false;
        lock.lock();
        try {
            leader = null;
            leaderQueue = null;
            vacantSince = System.nanoTime();
            toPromote = followed.isEmpty() ? List.of() : new ArrayList<>(followed);
            if (acceptorSleeping) {
                acceptorSleeping = false;
                wakeAcceptor = true;
            }
        } finally {
            lock.unlock();
        }
        for (AcceptQueue q : toPromote) {
            if (q.promoteFollower()) {
                break;
            }
            lock.lock();
            try {
                followed.remove(q); // nobody waits there any more
            } finally {
                lock.unlock();
            }
        }
        if (wakeAcceptor) {
            LockSupport.unpark(acceptor);
        }
    }

    /** A delivery to or the close of {@code queue} by another thread: its leading taker must look. */
    void queueChanged(AcceptQueue queue) {
        if (leaderQueue == queue && leader != Thread.currentThread()) {
            selector.wakeup(); // a wake-up before the select makes it return at once: none is lost
        }
    }

    /** The acceptor thread's loop: covers for the application threads when none has led for a while. */
    void runAcceptor() {
        acceptor = Thread.currentThread();
        long seenEpoch = -1;
        while (!closed) {
            boolean lead = false;
            long parkNanos = 0; // 0: until woken
            lock.lock();
            try {
                if (leader == null) {
                    long vacant = System.nanoTime() - vacantSince;
                    if (vacant >= GRACE_NANOS) {
                        leader = Thread.currentThread();
                        leaderQueue = null;
                        acceptorToYield = false;
                        lead = true;
                    } else {
                        parkNanos = GRACE_NANOS - vacant;
                    }
                } else if (epoch != seenEpoch) {
                    seenEpoch = epoch; // a leader that comes and goes: look again after the grace
                    parkNanos = GRACE_NANOS;
                } else {
                    acceptorSleeping = true; // one leader waiting all along: it wakes this thread when it leaves
                }
            } finally {
                lock.unlock();
            }
            if (lead) {
                leadAsAcceptor();
            } else if (parkNanos > 0) {
                LockSupport.parkNanos(this, parkNanos);
            } else {
                LockSupport.park(this);
            }
        }
    }

    private void leadAsAcceptor() {
        try {
            while (!closed && !acceptorToYield) {
                selector.select();
                selector.selectedKeys().clear();
                acceptAvailable(null);
            }
        } catch (ClosedSelectorException | ClosedChannelException e) {
            // closing
        } catch (IOException e) {
            if (!closed) {
                log.warn("Accepting a connection failed: {}; retrying in 100 ms", e.getMessage());
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
            }
        } finally {
            release();
        }
    }

    /** Stops leading and waiting: closes the selector (which frees the listening port once the socket is closed). */
    void close() {
        closed = true;
        selector.wakeup();
        Thread a = acceptor;
        if (a != null) {
            LockSupport.unpark(a);
        }
    }

    void closeSelector() {
        try {
            selector.close();
        } catch (IOException ignored) {
            // nothing more to do
        }
    }
}
