package io.traverse.bench.longpoll;

import java.util.Arrays;
import java.util.Locale;

/**
 * One sweep point's outcome over every client: events sent and received, losses (sequence numbers
 * never received), order violations (an event whose number is not above the last one received on
 * its connection: late or doubled), and the latency distribution from exact samples.
 *
 * @param point       "defaults" or {@code parameter=value}
 * @param settings    the {@code traverse.longpoll.*} settings the clients ran with (empty: defaults)
 * @param sent        events the publisher wrote, all connections together
 * @param received    events the clients read
 * @param lost        sequence numbers never received, all connections together
 * @param orderViolations events that arrived after a higher number on their connection, or twice
 */
public record LatencyResult(
        String point,
        String settings,
        int clients,
        int eventsPerClient,
        long sent,
        long received,
        long lost,
        long orderViolations,
        double minMs,
        double avgMs,
        double p99Ms,
        double maxMs) {

    /** @param samples latencies in nanoseconds; sorted in place */
    static LatencyResult of(
            String point,
            String settings,
            int clients,
            int eventsPerClient,
            long sent,
            long lost,
            long orderViolations,
            long[] samples,
            int count) {
        Arrays.sort(samples, 0, count);
        if (count == 0) {
            return new LatencyResult(
                    point,
                    settings,
                    clients,
                    eventsPerClient,
                    sent,
                    0,
                    lost,
                    orderViolations,
                    Double.NaN,
                    Double.NaN,
                    Double.NaN,
                    Double.NaN);
        }
        double sum = 0;
        for (int i = 0; i < count; i++) {
            sum += samples[i];
        }
        int p99 = (int) Math.ceil(0.99 * count) - 1;
        return new LatencyResult(
                point,
                settings,
                clients,
                eventsPerClient,
                sent,
                count,
                lost,
                orderViolations,
                ms(samples[0]),
                sum / count / 1e6,
                ms(samples[p99]),
                ms(samples[count - 1]));
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    static String tableHeader() {
        return String.format(
                Locale.ROOT,
                "%-24s %7s %8s %9s %5s %5s %9s %9s %9s %10s",
                "point",
                "clients",
                "events",
                "received",
                "lost",
                "order",
                "min ms",
                "avg ms",
                "p99 ms",
                "max ms");
    }

    String tableRow() {
        return String.format(
                Locale.ROOT,
                "%-24s %7d %8d %9d %5d %5d %9.2f %9.2f %9.2f %10.2f",
                point,
                clients,
                eventsPerClient,
                received,
                lost,
                orderViolations,
                minMs,
                avgMs,
                p99Ms,
                maxMs);
    }

    static String csvHeader() {
        return "point,settings,clients,events_per_client,sent,received,lost,order_violations,min_ms,avg_ms,p99_ms,max_ms";
    }

    String csvRow() {
        return String.format(
                Locale.ROOT,
                "%s,\"%s\",%d,%d,%d,%d,%d,%d,%.3f,%.3f,%.3f,%.3f",
                point,
                settings,
                clients,
                eventsPerClient,
                sent,
                received,
                lost,
                orderViolations,
                minMs,
                avgMs,
                p99Ms,
                maxMs);
    }
}
