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
        lock.lock();
        try {
            reserved--;
            if (!closed) {
                ready.addLast(socket);
                notEmpty.signal();
                return;
            }
        } finally {
            lock.unlock();
        }
        closeQuietly(socket);
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
     * Waits for the next connection like {@code ServerSocket.accept()}.
     *
     * @param timeoutMillis 0 waits forever
     * @throws SocketTimeoutException when the timeout passes ("Accept timed out", as the JDK says)
     * @throws SocketException "Socket closed" when the queue is or gets closed
     */
    public Socket take(int timeoutMillis) throws IOException {
        long remaining = TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        try {
            lock.lockInterruptibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("accept interrupted");
        }
        Socket next;
        try {
            while (ready.isEmpty()) {
                if (closed) {
                    throw new SocketException("Socket closed");
                }
                if (timeoutMillis == 0) {
                    notEmpty.await();
                } else {
                    if (remaining <= 0) {
                        throw new SocketTimeoutException("Accept timed out");
                    }
                    remaining = notEmpty.awaitNanos(remaining);
                }
            }
            next = ready.removeFirst();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("accept interrupted");
        } finally {
            lock.unlock();
        }
        roomFreed();
        return next;
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
