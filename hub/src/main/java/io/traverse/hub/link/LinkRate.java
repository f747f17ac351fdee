package io.traverse.hub.link;

import io.traverse.hub.AdmissionLimit;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rate of new links a hub takes: a token bucket of {@code burst} links refilled at
 * {@code perSecond}, over every link handshake (nodes, long-poll sessions, hubs). A link beyond it
 * is refused at once with a REJECT whose reason says so, rather than queued: a burst of thousands
 * of new links must not cost the hub more than the links it holds. A node's data link takes no
 * token, as it belongs to a node link that took one.
 *
 * <p>Kept as one number, the instant the bucket would be full again ("theoretical arrival time"),
 * so taking a token is a compare-and-set, safe and lock-free on any I/O thread.
 */
public final class LinkRate {
    private static final Logger log = LoggerFactory.getLogger(LinkRate.class);
    /** At most one warning about refused links in this long: a flood must not flood the log too. */
    private static final long WARN_GAP_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final int perSecond;
    private final int burst;
    private final long nanosPerLink;
    /** How far ahead of now the full instant may lie and still leave a token. */
    private final long slackNanos;

    private final AtomicLong fullAt;
    private final Runnable onRefused;
    private final LongAdder refused = new LongAdder();
    private final AtomicLong lastWarnNanos;

    /** @param onRefused run for every link refused (counting) */
    public LinkRate(int perSecond, int burst, Runnable onRefused) {
        if (perSecond < 1 || burst < 1) {
            throw new IllegalArgumentException(
                    "link rate " + perSecond + "/s with burst " + burst + ": both must be at least 1");
        }
        this.perSecond = perSecond;
        this.burst = burst;
        this.nanosPerLink = TimeUnit.SECONDS.toNanos(1) / perSecond;
        this.slackNanos = (burst - 1) * nanosPerLink;
        this.fullAt = new AtomicLong(System.nanoTime() - nanosPerLink);
        this.onRefused = onRefused;
        this.lastWarnNanos = new AtomicLong(System.nanoTime() - WARN_GAP_NANOS);
    }

    /** Takes a token for a new link at {@code nowNanos}; false (and counted) when there is none. */
    public boolean tryTake(long nowNanos) {
        while (true) {
            long full = fullAt.get();
            long from = full - nowNanos > 0 ? full : nowNanos;
            if (from - nowNanos > slackNanos) {
                refused(nowNanos);
                return false;
            }
            if (fullAt.compareAndSet(full, from + nanosPerLink)) {
                return true;
            }
        }
    }

    private void refused(long nowNanos) {
        refused.increment();
        onRefused.run();
        long last = lastWarnNanos.get();
        if (nowNanos - last >= WARN_GAP_NANOS && lastWarnNanos.compareAndSet(last, nowNanos)) {
            log.warn(
                    "Refusing new links beyond {} a second after a burst of {} ({} and {}); {} refused so far",
                    perSecond,
                    burst,
                    AdmissionLimit.LINK_RATE.key(),
                    AdmissionLimit.LINK_BURST_KEY,
                    refused.sum());
        }
    }

    /** The REJECT reason for a link refused here. */
    public String reason(String hubName) {
        return AdmissionLimit.LINK_RATE.reason(
                        "new links come faster than " + perSecond + " a second after a burst of " + burst + " ("
                                + AdmissionLimit.LINK_BURST_KEY + ")",
                        hubName)
                + "; try again in a moment";
    }
}
