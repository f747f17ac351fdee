package io.traverse.bench.load;

import java.util.ArrayList;
import java.util.List;

/**
 * Counts of latencies in microseconds, exact below 128 µs and within 1/64 (1.6 %) above, with the
 * exact maximum. Histograms of several processes are added up from their {@link #encode} form.
 * Not thread-safe: a writer records under its own lock and hands the histogram over.
 */
final class LatencyHistogram {
    private static final int LINEAR = 128;
    private static final int SUB_BITS = 6;
    private static final int BUCKETS = LINEAR + (63 - 7) * (1 << SUB_BITS);
    private final long[] counts = new long[BUCKETS];
    private long count;
    private long max;

    void record(long micros) {
        long v = Math.max(0, micros);
        counts[index(v)]++;
        count++;
        max = Math.max(max, v);
    }

    void add(LatencyHistogram other) {
        for (int i = 0; i < BUCKETS; i++) {
            counts[i] += other.counts[i];
        }
        count += other.count;
        max = Math.max(max, other.max);
    }

    /** What was recorded since {@code earlier}, a copy of this histogram taken before (the maximum stays this one's). */
    LatencyHistogram since(LatencyHistogram earlier) {
        LatencyHistogram d = new LatencyHistogram();
        for (int i = 0; i < BUCKETS; i++) {
            d.counts[i] = counts[i] - earlier.counts[i];
            if (d.counts[i] > 0) {
                d.max = Math.max(d.max, Math.min(max, upperBound(i)));
            }
        }
        d.count = count - earlier.count;
        if (d.count > 0 && max > earlier.max) {
            d.max = max;
        }
        return d;
    }

    long count() {
        return count;
    }

    long maxMicros() {
        return max;
    }

    /** The latency at quantile {@code q} (0..1), in microseconds: the upper bound of its bucket, never above the maximum. */
    long quantileMicros(double q) {
        if (count == 0) {
            return 0;
        }
        long rank = Math.max(1, (long) Math.ceil(q * count));
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(max, upperBound(i));
            }
        }
        return max;
    }

    /** Points of the cumulative distribution: {latency µs, fraction at or below}, one per non-empty bucket. */
    List<double[]> cdf() {
        List<double[]> points = new ArrayList<>();
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            if (counts[i] > 0) {
                seen += counts[i];
                points.add(new double[] {Math.min(max, upperBound(i)), (double) seen / count});
            }
        }
        return points;
    }

    /** {@code max;index:count,index:count...} ("-" when empty). */
    String encode() {
        if (count == 0) {
            return "-";
        }
        StringBuilder b = new StringBuilder().append(max).append(';');
        for (int i = 0; i < BUCKETS; i++) {
            if (counts[i] > 0) {
                b.append(i).append(':').append(counts[i]).append(',');
            }
        }
        b.setLength(b.length() - 1);
        return b.toString();
    }

    static LatencyHistogram decode(String text) {
        LatencyHistogram h = new LatencyHistogram();
        if (text.equals("-")) {
            return h;
        }
        int semicolon = text.indexOf(';');
        h.max = Long.parseLong(text.substring(0, semicolon));
        for (String pair : text.substring(semicolon + 1).split(",")) {
            int colon = pair.indexOf(':');
            long c = Long.parseLong(pair.substring(colon + 1));
            h.counts[Integer.parseInt(pair.substring(0, colon))] += c;
            h.count += c;
        }
        return h;
    }

    static int index(long v) {
        if (v < LINEAR) {
            return (int) v;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(v); // >= 7
        int sub = (int) ((v >>> (exponent - SUB_BITS)) & ((1 << SUB_BITS) - 1));
        return LINEAR + (exponent - 7) * (1 << SUB_BITS) + sub;
    }

    static long upperBound(int index) {
        if (index < LINEAR) {
            return index;
        }
        int exponent = (index - LINEAR) / (1 << SUB_BITS) + 7;
        int sub = (index - LINEAR) % (1 << SUB_BITS);
        long width = 1L << (exponent - SUB_BITS);
        return (1L << exponent) + (sub + 1) * width - 1;
    }
}
