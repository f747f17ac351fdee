package io.traverse.bench.load;

import java.util.List;

/**
 * The figures of one load run, for the summary block ({@link LoadReport}), the plots and the CI test.
 *
 * @param held most connections held at once (clients' count)
 * @param brokeAt ramp: connections held when the run broke (0: it did not)
 * @param why ramp: what broke it, or why the run stopped; churn: "" or the first fault
 * @param mbPerSecond aggregate chunk bytes per second written by the clients while most were held (ramp: in the last step measured) (MB = 10^6 bytes)
 * @param perConnectionBytesPerSecond that divided by the connections held
 * @param streamFairness fastest / slowest verified stream of 20 chunks or more, in chunk bytes per second of its life
 * @param windowFairness most / least chunk bytes written in 5 s by connections open all that time (worst window seen;
 *        NaN when the interval is above 100 ms, so a window holds too few chunks to compare)
 * @param verified streams checked by length and SHA-256 after half-close (survivors only in churn)
 * @param lostBytes bytes the server did not read, over streams that came up short (survivors)
 * @param reordered streams of the right length with the wrong SHA-256 (survivors)
 * @param resets connection resets (survivors)
 * @param otherFailures any other failure of a surviving connection (timeouts, connect failures, ...)
 * @param hubReclaimSeconds churn: from the SIGKILL until the hub listed none of the killed JVM's nodes (-1: never)
 * @param serverReclaimSeconds churn: until the server had closed every connection of the killed JVM (-1: never)
 * @param steps ramp: one point per step; churn: one per progress line
 * @param cpuSplit CPU seconds of each process over the run (is the hub or the harness short of CPU?)
 */
record LoadResult(
        LoadOptions options,
        int held,
        int brokeAt,
        String why,
        LatencyHistogram latency,
        double mbPerSecond,
        double perConnectionBytesPerSecond,
        double streamFairness,
        double windowFairness,
        long verified,
        long lostBytes,
        long reordered,
        long resets,
        long otherFailures,
        List<String> failureLines,
        long hubRssIdle,
        long hubRssLoaded,
        long hubHeapIdle,
        long hubHeapLoaded,
        int hubThreads,
        double hubCpuSeconds,
        double hubReclaimSeconds,
        double serverReclaimSeconds,
        List<Point> steps,
        String cpuSplit,
        String machineLoad) {

    /** One measurement while the run goes on. */
    record Point(
            double seconds,
            int held,
            long hubRss,
            long hubHeap,
            double p50Millis,
            double p99Millis,
            double mbPerSecond,
            double perConnectionBytesPerSecond) {}

    /** True when the survivors lost nothing and saw no reset or other failure. */
    boolean survivorsClean() {
        return lostBytes == 0 && reordered == 0 && resets == 0 && otherFailures == 0;
    }
}
