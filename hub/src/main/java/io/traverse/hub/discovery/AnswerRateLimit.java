package io.traverse.hub.discovery;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Token buckets that bound how many discovery answers a hub sends: overall, and per source
 * address (so one chatty or forged source cannot use up the answers meant for everybody else).
 * The per-source table is bounded; the least recently seen sources are forgotten first.
 * Not thread-safe: the responder's one thread owns it.
 */
final class AnswerRateLimit {
    static final int MAX_SOURCES = 4096;

    private final Bucket overall;
    private final double perSourceRate;
    private final int perSourceBurst;
    private final LongSupplier nanoClock;
    private final Map<InetAddress, Bucket> sources = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<InetAddress, Bucket> eldest) {
            return size() > MAX_SOURCES;
        }
    };

    AnswerRateLimit(
            double overallPerSecond,
            int overallBurst,
            double perSourcePerSecond,
            int perSourceBurst,
            LongSupplier nanoClock) {
        if (overallPerSecond <= 0 || perSourcePerSecond <= 0 || overallBurst < 1 || perSourceBurst < 1) {
            throw new IllegalArgumentException("rates must be positive and bursts at least 1");
        }
        this.nanoClock = nanoClock;
        this.overall = new Bucket(overallPerSecond, overallBurst, nanoClock.getAsLong());
        this.perSourceRate = perSourcePerSecond;
        this.perSourceBurst = perSourceBurst;
    }

    /** True if an answer to {@code source} may be sent now (and counts it). */
    boolean tryAcquire(InetAddress source) {
        long now = nanoClock.getAsLong();
        Bucket own = sources.computeIfAbsent(source, s -> new Bucket(perSourceRate, perSourceBurst, now));
        if (!own.hasToken(now) || !overall.hasToken(now)) {
            return false;
        }
        own.take();
        overall.take();
        return true;
    }

    int trackedSources() {
        return sources.size();
    }

    private static final class Bucket {
        private final double perNano;
        private final int burst;
        private double tokens;
        private long refilledAt;

        Bucket(double perSecond, int burst, long now) {
            this.perNano = perSecond / 1e9;
            this.burst = burst;
            this.tokens = burst;
            this.refilledAt = now;
        }

        boolean hasToken(long now) {
            tokens = Math.min(burst, tokens + (now - refilledAt) * perNano);
            refilledAt = now;
            return tokens >= 1;
        }

        void take() {
            tokens -= 1;
        }
    }
}
