package io.traverse.protocol;

import java.time.Duration;

/** A point in time by which a connection setup must finish, on the monotonic clock. */
public final class Deadline {
    private final long deadlineNanos;

    private Deadline(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    public static Deadline after(Duration timeout) {
        return new Deadline(System.nanoTime() + timeout.toNanos());
    }

    public long remainingNanos() {
        return deadlineNanos - System.nanoTime();
    }

    public boolean isExpired() {
        return remainingNanos() <= 0;
    }

    /**
     * What is left in whole milliseconds, at least 1 while any time is left, 0 once expired — the
     * form {@code Socket.connect} and {@code setSoTimeout} want (where 0 would mean "forever").
     */
    public int remainingMillis() {
        long nanos = remainingNanos();
        if (nanos <= 0) {
            return 0;
        }
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, nanos / 1_000_000));
    }
}
