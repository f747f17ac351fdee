package io.traverse.hub.http;

/**
 * Relay bytes per second, from the hub's running byte counters sampled now and then: the rate is
 * the growth since the previous sample. Not thread-safe: one sampler.
 */
final class RelayThroughput {
    /** Bytes per second delivered to nodes here, forwarded to other hubs, and the two together. */
    record Rate(long deliveredPerSecond, long forwardedPerSecond, long totalPerSecond) {
        static final Rate NONE = new Rate(0, 0, 0);
    }

    private long lastNanos;
    private long lastDelivered;
    private long lastForwarded;
    private boolean sampled;

    Rate sample(long nowNanos, HubTraffic traffic) {
        Rate rate = Rate.NONE;
        long elapsed = nowNanos - lastNanos;
        if (sampled && elapsed > 0) {
            long delivered = perSecond(traffic.relayBytesDelivered() - lastDelivered, elapsed);
            long forwarded = perSecond(traffic.relayBytesForwarded() - lastForwarded, elapsed);
            rate = new Rate(delivered, forwarded, delivered + forwarded);
        }
        sampled = true;
        lastNanos = nowNanos;
        lastDelivered = traffic.relayBytesDelivered();
        lastForwarded = traffic.relayBytesForwarded();
        return rate;
    }

    private static long perSecond(long bytes, long nanos) {
        return Math.max(0, (long) (bytes * 1e9 / nanos));
    }
}
