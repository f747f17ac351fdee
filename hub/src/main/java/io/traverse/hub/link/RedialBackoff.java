package io.traverse.hub.link;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter for re-dialling a hub: the delay doubles per failure from the
 * minimum to the maximum, and each wait is drawn from [delay/2, delay] so that hubs restarted
 * together do not dial in lockstep.
 */
public final class RedialBackoff {
    private final long minMillis;
    private final long maxMillis;
    private int failures;

    public RedialBackoff(Duration min, Duration max) {
        this.minMillis = min.toMillis();
        this.maxMillis = max.toMillis();
    }

    /** The wait before the next attempt after one more failure. */
    public long nextDelayMillis() {
        long delay = minMillis << Math.min(failures, 20);
        failures++;
        delay = Math.min(delay, maxMillis);
        return delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
    }

    /** A jittered minimum delay, without counting a failure. */
    public long firstDelayMillis() {
        return minMillis / 2 + ThreadLocalRandom.current().nextLong(minMillis / 2 + 1);
    }

    public void reset() {
        failures = 0;
    }

    public int failures() {
        return failures;
    }
}
