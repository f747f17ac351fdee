package io.traverse.bench.load;

import java.io.PrintStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a client process's connections did, reported as one {@code STAT} line a second: connections
 * held, counters since the start, the latency histogram of the last second, and the fairness window
 * (least and most chunk bytes written in the last {@value #WINDOW_LINES} seconds by a connection
 * open all that time; renewed every {@value #WINDOW_LINES} lines). A verified stream's rate counts
 * for fairness when it lived {@value #RATED_CHUNKS} chunks or more (a shorter one is mostly set-up
 * and half-close).
 */
final class StreamTally {
    static final int WINDOW_LINES = 5;
    static final int RATED_CHUNKS = 20;
    private final FailureKinds failures;
    private final Set<PacedConnection> open = ConcurrentHashMap.newKeySet();
    private final LongAdder opened = new LongAdder();
    private final LongAdder sent = new LongAdder();
    private final LongAdder verified = new LongAdder();
    private final LongAdder verifiedBytes = new LongAdder();
    private final LongAdder mismatched = new LongAdder();
    private final LongAdder lostBytes = new LongAdder();
    private final LongAdder reordered = new LongAdder();
    private final LongAdder late = new LongAdder();
    private final LongAdder chunks = new LongAdder();
    private LatencyHistogram latencies = new LatencyHistogram();
    private double rateMin = Double.MAX_VALUE;
    private double rateMax;
    private Map<PacedConnection, Long> windowStart = new HashMap<>();
    private int lines;
    private long windowMin;
    private long windowMax;
    private int windowConnections;

    StreamTally(PrintStream out) {
        this.failures = new FailureKinds(out);
    }

    FailureKinds failures() {
        return failures;
    }

    void opened(PacedConnection c) {
        opened.increment();
        open.add(c);
    }

    void closed(PacedConnection c) {
        open.remove(c);
    }

    void sent(int bytes) {
        sent.add(bytes);
        chunks.increment();
    }

    void late() {
        late.increment();
    }

    synchronized void latency(long micros) {
        latencies.record(micros);
    }

    /** A stream verified: {@code bytes} in all; {@code chunkBytes} of chunks written over {@code chunkSeconds} (first write to last echo). */
    synchronized void verified(long bytes, int chunkCount, long chunkBytes, double chunkSeconds) {
        verified.increment();
        verifiedBytes.add(bytes);
        if (chunkCount >= RATED_CHUNKS) {
            double rate = chunkBytes / Math.max(chunkSeconds, 1e-3);
            rateMin = Math.min(rateMin, rate);
            rateMax = Math.max(rateMax, rate);
        }
    }

    void mismatched(long lost, boolean sameLength) {
        mismatched.increment();
        lostBytes.add(lost);
        if (sameLength) {
            reordered.increment();
        }
    }

    /** The {@code STAT} line for the second since the last call. */
    String statLine() {
        LatencyHistogram h;
        double min;
        double max;
        synchronized (this) {
            h = latencies;
            latencies = new LatencyHistogram();
            min = rateMin == Double.MAX_VALUE ? 0 : rateMin;
            max = rateMax;
        }
        if (lines++ % WINDOW_LINES == 0) {
            Map<PacedConnection, Long> now = new HashMap<>();
            long least = Long.MAX_VALUE;
            long most = 0;
            int connections = 0;
            for (PacedConnection c : open) {
                long w = c.written();
                now.put(c, w);
                Long before = windowStart.get(c);
                if (before != null) {
                    least = Math.min(least, w - before);
                    most = Math.max(most, w - before);
                    connections++;
                }
            }
            windowStart = now;
            windowMin = connections == 0 ? 0 : least;
            windowMax = most;
            windowConnections = connections;
        }
        return "STAT held=" + open.size() + " opened=" + opened.sum() + " sent=" + sent.sum() + " chunks="
                + chunks.sum()
                + " late=" + late.sum() + " verified=" + verified.sum() + " verifiedBytes=" + verifiedBytes.sum()
                + " mismatched=" + mismatched.sum() + " lost=" + lostBytes.sum() + " reordered=" + reordered.sum()
                + " failures=" + failures.encode() + " winConns=" + windowConnections
                + " winMin=" + windowMin + " winMax=" + windowMax
                + " rateMin=" + Math.round(min) + " rateMax=" + Math.round(max) + " hist=" + h.encode();
    }
}
