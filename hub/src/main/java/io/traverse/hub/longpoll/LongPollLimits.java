package io.traverse.hub.longpoll;

import java.time.Duration;

/**
 * The hub's bounds on long-poll sessions.
 *
 * @param maxServerTimeout  the longest a poll is held empty, whatever the node asks (RobustTrav's 2 minutes: firewalls close quieter connections)
 * @param maxUnacknowledged downstream bytes a session may hold for its node, sent or waiting, before it fails
 * @param expiry            a session with no request for this long ends, and its link with it
 * @param maxSessions       sessions open at once; more are refused with 503
 */
public record LongPollLimits(Duration maxServerTimeout, long maxUnacknowledged, Duration expiry, int maxSessions) {
    public LongPollLimits {
        if (maxServerTimeout.isNegative() || maxServerTimeout.compareTo(Duration.ofMinutes(2)) > 0) {
            throw new IllegalArgumentException(
                    "the long-poll server timeout cap must be within 0-2 min, not " + maxServerTimeout);
        }
        if (maxUnacknowledged < 4L * 1024 * 1024) {
            throw new IllegalArgumentException(
                    "a long-poll session must be allowed at least 4 MiB unacknowledged, not " + maxUnacknowledged);
        }
        if (expiry.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("the long-poll session expiry must be at least 1 s, not " + expiry);
        }
        if (maxSessions < 1) {
            throw new IllegalArgumentException("at least one long-poll session must be allowed");
        }
    }

    public static LongPollLimits defaults() {
        return new LongPollLimits(Duration.ofMinutes(2), 8L * 1024 * 1024, Duration.ofSeconds(60), 10_000);
    }

    /** Downstream bytes held for the node before the rest waits in the link's outbound buffer (then it is not writable). */
    public long window() {
        return Math.min(4L * 1024 * 1024, maxUnacknowledged / 2);
    }

    public LongPollLimits withMaxUnacknowledged(long bytes) {
        return new LongPollLimits(maxServerTimeout, bytes, expiry, maxSessions);
    }

    public LongPollLimits withExpiry(Duration d) {
        return new LongPollLimits(maxServerTimeout, maxUnacknowledged, d, maxSessions);
    }
}
