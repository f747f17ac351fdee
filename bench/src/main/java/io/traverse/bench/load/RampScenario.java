package io.traverse.bench.load;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The load test of CastGate's section IV on the hub: connections are added in steps of
 * {@code --step} (opened over the first third of a step, measured over the rest) until a step
 * breaks — a failure of any kind, fewer connections held than opened, a p99 round trip above
 * {@code --p99-limit-ms}, more late chunks than {@code --late-limit} — or {@code --max-connections}
 * are held. Then every stream half-closes and is verified. The result names the break point and
 * what broke (the first FAIL line says which error).
 */
final class RampScenario {
    private RampScenario() {}

    static LoadResult run(LoadOptions o, PrintStream log) throws IOException, InterruptedException {
        try (LoadBed bed = new LoadBed(o, log)) {
            bed.start(false);
            long heapIdle = bed.hub().heapAfterGc();
            long rssIdle = bed.hub().sample().rssBytes(); // after the GC, as the loaded figure is
            double cpuIdle = bed.hub().sample().cpuSeconds();
            List<LoadResult.Point> steps = new ArrayList<>();
            int target = 0;
            int brokeAt = 0;
            String why = "reached --max-connections " + o.maxConnections();
            double bestMbps = 0;
            double bestPerConnection = 0;
            int held = 0;
            long heapLoaded = heapIdle;
            long rssLoaded = rssIdle;
            try {
                while (target < o.maxConnections()) {
                    int add = Math.min(o.step(), o.maxConnections() - target);
                    target += add;
                    long openMillis = o.stepSeconds() * 1000L / 3;
                    bed.share("OPEN %d " + openMillis, add);
                    bed.hold(openMillis / 1000.0 + 0.5);
                    long failuresBefore = bed.failureCount();
                    long lateBefore = bed.survivorCount("late");
                    long chunksBefore = bed.survivorCount("chunks");
                    long sentBefore = bed.sent();
                    LatencyHistogram latBefore = bed.latencies();
                    long t0 = System.nanoTime();
                    bed.hold(o.stepSeconds() - openMillis / 1000.0 - 0.5);
                    double secs = (System.nanoTime() - t0) / 1e9;
                    LatencyHistogram window = bed.latencies().since(latBefore);
                    double mbps = (bed.sent() - sentBefore) / 1e6 / secs;
                    held = Math.max(held, bed.held());
                    int heldNow = bed.held();
                    long heap = bed.hub().heapAfterGc();
                    long rss = bed.hub().sample().rssBytes();
                    LoadResult.Point p = new LoadResult.Point(
                            bed.seconds(),
                            heldNow,
                            rss,
                            heap,
                            window.quantileMicros(0.5) / 1e3,
                            window.quantileMicros(0.99) / 1e3,
                            mbps,
                            heldNow == 0 ? 0 : mbps * 1e6 / heldNow);
                    steps.add(p);
                    log.printf(
                            Locale.ROOT,
                            "STEP %d connections: held %d, %.2f MB/s (%.0f B/s each), rtt p50 %.1f p99 %.1f max %.1f ms,"
                                    + " hub heap %.1f MiB rss %.1f MiB; relay so far: %s%n",
                            target,
                            heldNow,
                            mbps,
                            p.perConnectionBytesPerSecond(),
                            p.p50Millis(),
                            p.p99Millis(),
                            window.maxMicros() / 1e3,
                            heap / 1048576.0,
                            rss / 1048576.0,
                            bed.hub().relayCounters());
                    // The figures of the last step measured: the most load the hub carried (also when that step broke).
                    bestMbps = mbps;
                    bestPerConnection = p.perConnectionBytesPerSecond();
                    heapLoaded = heap;
                    rssLoaded = rss;
                    long failures = bed.failureCount() - failuresBefore;
                    long chunks = bed.survivorCount("chunks") - chunksBefore;
                    double lateFraction = chunks == 0 ? 1 : (double) (bed.survivorCount("late") - lateBefore) / chunks;
                    String broke = failures > 0
                            ? "failures " + failureSummary(bed) + "; first: " + first(bed.failureLines())
                            : heldNow < target
                                    ? "only " + heldNow + " of " + target + " connections held"
                                            + (bed.survivorCount("opened") < target
                                                    ? " (no failure: " + bed.survivorCount("opened")
                                                            + " opened by the step's end, opening is that slow)"
                                                    : "")
                                    : p.p99Millis() > o.p99LimitMillis()
                                            ? String.format(
                                                    Locale.ROOT,
                                                    "p99 round trip %.1f ms above %d ms",
                                                    p.p99Millis(),
                                                    o.p99LimitMillis())
                                            : lateFraction > o.lateLimit()
                                                    ? String.format(
                                                            Locale.ROOT,
                                                            "%.1f %% of chunks late (above %.1f %%)",
                                                            lateFraction * 100,
                                                            o.lateLimit() * 100)
                                                    : null;
                    if (broke != null) {
                        brokeAt = target;
                        why = broke;
                        log.println("BROKE at " + target + " connections: " + broke);
                        break;
                    }
                }
            } catch (IllegalStateException e) {
                brokeAt = target;
                why = e.getMessage() + "; first failure: " + first(bed.failureLines());
                log.println("BROKE at " + target + " connections: " + why);
            }
            ProcessSample end = bed.hub().sample();
            String cpuSplit = bed.cpuSplit();
            String finishProblem = "";
            try {
                bed.finishAll();
            } catch (RuntimeException e) {
                finishProblem = "; " + e.getMessage();
            }
            return new LoadResult(
                    o,
                    held,
                    brokeAt,
                    why + finishProblem,
                    bed.latencies(),
                    bestMbps,
                    bestPerConnection,
                    bed.streamFairness(),
                    bed.worstWindowFairness(),
                    bed.survivorCount("verified"),
                    bed.survivorCount("lost"),
                    bed.survivorCount("reordered"),
                    bed.survivorResets(),
                    bed.survivorFailures() - bed.survivorResets(),
                    bed.failureLines(),
                    rssIdle,
                    rssLoaded,
                    heapIdle,
                    heapLoaded,
                    end.threads(),
                    end.cpuSeconds() - cpuIdle,
                    Double.NaN,
                    Double.NaN,
                    steps,
                    cpuSplit,
                    LoadReport.uptime());
        }
    }

    static String failureSummary(LoadBed bed) {
        Map<String, Long> kinds = new TreeMap<>();
        for (LoadClientProcess c : bed.allClients()) {
            c.stat().counts("failures").forEach((k, v) -> kinds.merge("client " + k, v, Long::sum));
        }
        bed.server()
                .stat()
                .counts("failures")
                .forEach((k, v) -> kinds.merge("server " + k, v, Long::sum)); // kind@group
        return kinds.toString();
    }

    static String first(List<String> lines) {
        return lines.isEmpty() ? "none" : lines.get(0);
    }
}
