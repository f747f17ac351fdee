package io.traverse.listen;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The backlog of one virtual port: connections whose handshake has been answered ACCEPT and that
 * wait for the application's {@code accept()}, as the kernel's backlog holds connections the
 * kernel has completed. A slot is reserved before ACCEPT is sent, so a client is never told
 * "accepted" for a connection that then finds no room. When it is full, handshakes wait for room
 * (as the kernel holds back SYNs); whoever waits registers, and is told when room frees up.
 */
public final class AcceptQueue {
    private final int capacity;
    private final ArrayDeque<Socket> ready = new ArrayDeque<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private int reserved;
    private boolean closed;
    private final java.util.concurrent.atomic.AtomicInteger waiters = new java.util.concurrent.atomic.AtomicInteger();
    private volatile Runnable roomListener;
    private volatile ListenerLead lead;
    /** Threads waiting in {@link #take} while another leads; guarded by lock. */
    private int followers;

    public AcceptQueue(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("backlog must be at least 1, not " + capacity);
        }
        this.capacity = capacity;
    }

    public int capacity() {
        return capacity;
    }

    /** Called, on the thread that frees it, when room frees up or the queue closes while someone waits. */
    public void onRoom(Runnable listener) {
        roomListener = listener;
    }

    /** A handshake starts waiting for room. */
    public void addWaiter() {
        waiters.incrementAndGet();
    }

    public void removeWaiter() {
        waiters.decrementAndGet();
    }

    private void roomFreed() {
        Runnable listener = roomListener;
        if (listener != null && waiters.get() > 0) {
            listener.run();
        }
    }

    /** Claims room for one connection; false if the backlog is full or the queue is closed. */
    public boolean tryReserve() {
        lock.lock();
        try {
            if (closed || ready.size() + reserved >= capacity) {
                return false;
            }
            reserved++;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Hands over a connection for a reserved slot; if the queue closed meanwhile, the connection is closed. */
    public void deliver(Socket socket) {
        boolean queued;
        lock.lock();
        try {
            reserved--;
            queued = !closed;
            if (queued) {
                ready.addLast(socket);
                notEmpty.signal();
            }
        } finally {
            lock.unlock();
        }
        if (!queued) {
            closeQuietly(socket);
            return;
        }
        ListenerLead l = lead;
        if (l != null) {
            l.queueChanged(this); // a thread of this port may be leading, waiting on the listening socket
        }
    }

    /** Gives a reserved slot back unused. */
    public void release() {
        lock.lock();
        try {
            reserved--;
        } finally {
            lock.unlock();
        }
        roomFreed();
    }

    /**
     * Waits for the next connection like {@code ServerSocket.accept()}. On a node's virtual port
     * the waiting thread may lead: take connections from the node's listening socket itself
     * ({@link ListenerLead}), which saves the hand-off from the acceptor thread.
     *
     * @param timeoutMillis 0 waits forever
     * @throws SocketTimeoutException when the timeout passes ("Accept timed out", as the JDK says)
     * @throws SocketException "Socket closed" when the queue is or gets closed
     */
    public Socket take(int timeoutMillis) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        ListenerLead l = lead;
        while (true) {
            if (Thread.currentThread().isInterrupted()) {
                throw new java.io.InterruptedIOException("accept interrupted");
            }
            long remaining = timeoutMillis == 0 ? Long.MAX_VALUE : deadline - System.nanoTime();
            Socket next;
            lock.lock();
            try {
                next = ready.pollFirst();
                if (next == null) {
                    if (closed) {
                        throw new SocketException("Socket closed");
                    }
                    if (remaining <= 0) {
                        throw new SocketTimeoutException("Accept timed out");
                    }
                    if (l == null || !l.tryLead(this)) {
                        followers++;
                        try {
                            if (timeoutMillis == 0) {
                                notEmpty.await();
                            } else {
                                notEmpty.awaitNanos(remaining);
                            }
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new java.io.InterruptedIOException("accept interrupted");
                        } finally {
                            followers--;
                        }
                        continue;
                    }
                }
            } finally {
                lock.unlock();
            }
            if (next != null) {
                roomFreed();
                return next;
            }
            l.serve(this, remaining); // leads until something arrives or the wait ends, then leaves the lead
        }
    }

    /** Whether a connection waits to be taken. */
    boolean hasReady() {
        lock.lock();
        try {
            return !ready.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** Called by the {@link ListenerLead} leaving the lead: wakes one thread waiting here to lead; false if none waits. */
    boolean promoteFollower() {
        lock.lock();
        try {
            if (followers == 0) {
                return false;
            }
            notEmpty.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Lets threads waiting on this backlog lead the node's listening socket (done when the port is bound). */
    void ledBy(ListenerLead lead) {
        this.lead = lead;
    }

    /** Wakes every waiting {@link #take} with "Socket closed" and closes connections not yet accepted. */
    public void close() {
        ArrayDeque<Socket> orphans;
        lock.lock();
        try {
            closed = true;
            orphans = new ArrayDeque<>(ready);
            ready.clear();
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
        orphans.forEach(AcceptQueue::closeQuietly);
        ListenerLead l = lead;
        if (l != null) {
            l.queueChanged(this);
        }
        roomFreed(); // waiting handshakes learn that the port is gone
    }

    public boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already gone
        }
    }
}
