package io.traverse.connect;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Enforces connect deadlines by closing what is overdue, so that connects and handshake reads
 * can be plain blocking calls. (The JDK's timed connect and read switch the descriptor between
 * blocking and non-blocking around every call, and a timer task per connection would wake a timer
 * thread per connection.) One daemon thread for the whole JVM ticks every {@link #TICK_MILLIS} ms
 * while deadlines are watched, parks after a second without any, and is woken only then — a busy
 * connect loop costs no signal at all. Deadlines fire up to one tick late.
 */
public final class DeadlineWatchdog {
    static final long TICK_MILLIS = 5;
    private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final DeadlineWatchdog SHARED = new DeadlineWatchdog();

    /** A watched deadline; {@link #close()} stops watching it. */
    public final class Watch implements AutoCloseable {
        private final long deadlineNanos;
        private final Runnable onExpiry;

        private Watch(long deadlineNanos, Runnable onExpiry) {
            this.deadlineNanos = deadlineNanos;
            this.onExpiry = onExpiry;
        }

        @Override
        public void close() {
            watched.remove(this);
        }
    }

    private final Set<Watch> watched = ConcurrentHashMap.newKeySet();
    private volatile Thread thread;
    private volatile boolean parked = true;

    public static DeadlineWatchdog shared() {
        return SHARED;
    }

    /** Runs {@code onExpiry} (on the watchdog thread) once {@code deadlineNanos} has passed, unless closed first. */
    public Watch watch(long deadlineNanos, Runnable onExpiry) {
        Watch w = new Watch(deadlineNanos, onExpiry);
        watched.add(w);
        if (parked) {
            wake();
        }
        return w;
    }

    private synchronized void wake() {
        if (thread == null) {
            thread = new Thread(this::run, "traverse-deadlines");
            thread.setDaemon(true);
            thread.start();
        } else {
            LockSupport.unpark(thread);
        }
    }

    private void run() {
        long idleSince = System.nanoTime();
        while (true) {
            parked = false;
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(TICK_MILLIS));
            long now = System.nanoTime();
            for (Watch w : watched) {
                if (now - w.deadlineNanos >= 0 && watched.remove(w)) {
                    try {
                        w.onExpiry.run();
                    } catch (RuntimeException e) {
                        // an expiry action only closes things; nothing to add
                    }
                }
            }
            if (!watched.isEmpty()) {
                idleSince = now;
            } else if (now - idleSince > IDLE_NANOS) {
                parked = true;
                // A watch added between the check above and here unparks us (or finds us awake).
                if (watched.isEmpty()) {
                    LockSupport.park(this);
                }
                idleSince = System.nanoTime();
            }
        }
    }
}
