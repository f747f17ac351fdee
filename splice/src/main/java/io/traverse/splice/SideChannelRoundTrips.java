package io.traverse.splice;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * The last few splice requests' round trips, and an estimate that slow requests (a cold JVM's
 * first ones, a busy moment) do not set: the least of the last {@value #SAMPLES}. The target's lead
 * in the source's rounds is about one such round trip, twice the answer's usual way; a lead set
 * by an outlier would hold those rounds back for as long (measured: 80-160 ms leads for the three
 * connects after a cold start, while the answers took 2-5 ms). Too short a lead costs less: the
 * other rounds are under way anyway.
 */
final class SideChannelRoundTrips {
    static final int SAMPLES = 5;

    private final long[] samples = new long[SAMPLES];
    private int count;
    private int next;

    synchronized void add(long nanos) {
        samples[next] = nanos;
        next = (next + 1) % SAMPLES;
        count = Math.min(count + 1, SAMPLES);
    }

    /** The least of the recent round trips; empty before the first. */
    synchronized OptionalLong estimateNanos() {
        if (count == 0) {
            return OptionalLong.empty();
        }
        return Arrays.stream(samples, 0, count).min();
    }
}
