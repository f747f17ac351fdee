package io.traverse.hublink;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Delays between link attempts: exponential from {@code initial} to {@code max}, each drawn at
 * random from [½·d, d] ("equal jitter") so that a site full of nodes whose hub restarted does not
 * dial it back in lockstep. {@link #reset()} after a link that worked. Not thread-safe.
 */
final class ReconnectBackoff {
    private final long initialNanos;
    private final long maxNanos;
    private long currentNanos;

    ReconnectBackoff(Duration initial, Duration max) {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max, not " + initial + " and " + max);
        }
        this.initialNanos = initial.toNanos();
        this.maxNanos = max.toNanos();
        this.currentNanos = initialNanos;
    }

    /** The delay before the next attempt; each call doubles the one after, up to the maximum. */
    Duration next() {
        long d = currentNanos;
        currentNanos = Math.min(maxNanos, currentNanos * 2);
        long half = d / 2;
        return Duration.ofNanos(half + ThreadLocalRandom.current().nextLong(d - half + 1));
    }

    void reset() {
        currentNanos = initialNanos;
    }
}
