package io.traverse.bench.load;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A hub that crashes and comes back: the clients keep a mean of {@code --connections} connected
 * with exponential lifetimes (as in churn) through the one hub, which is SIGKILLed half-way
 * through {@code --seconds} and started again on the same port. The connections it carried must
 * end with an exception (reset), never hang to the read timeout and never hand over wrong data;
 * every stream that verifies must be whole. Measures how long until the new hub lists every node
 * again and until the clients hold as many connections as before.
 */
final class RestartScenario {
    private RestartScenario() {}

    static LoadResult run(LoadOptions o, PrintStream log) throws IOException, InterruptedException {
        try (LoadBed bed = new LoadBed(o, log)) {
            bed.start(false);
            long heapIdle = bed.hub().heapAfterGc();
            long rssIdle = bed.hub().sample().rssBytes();
            double cpuIdle = bed.hub().sample().cpuSeconds();
            bed.share("CHURN %d " + o.lifetimeMillis() + " " + o.rampSeconds() * 1000L, o.connections());
            List<LoadResult.Point> points = new ArrayList<>(bed.hold(o.rampSeconds() + 5));
            long sentBefore = bed.sent();
            long t0 = System.nanoTime();
            points.addAll(bed.hold(o.seconds() / 2.0));
            int held = bed.held();
            long heapLoaded = bed.hub().heapAfterGc();
            long rssLoaded = bed.hub().sample().rssBytes();
            double mbps = (bed.sent() - sentBefore) / 1e6 / ((System.nanoTime() - t0) / 1e9);
            int nodes = o.clients() * o.nodesPerClient() + o.serverNodes();
            long resetsBefore = bed.survivorResets();
            log.printf(
                    Locale.ROOT,
                    "RESTART the hub (SIGKILL, then a new one on port %d): %d connections held, %d nodes%n",
                    bed.hub().port(),
                    held,
                    nodes);
            long killed = System.nanoTime();
            bed.restartHub();
            log.printf(Locale.ROOT, "new hub listening after %.2f s%n", (System.nanoTime() - killed) / 1e9);
            double relinked = -1;
            double recovered = -1;
            long limit = killed + (o.readTimeoutMillis() + 30_000L) * 1_000_000L;
            long nextProgress = System.nanoTime();
            while (System.nanoTime() < limit && (relinked < 0 || recovered < 0)) {
                bed.check();
                if (relinked < 0 && bed.hub().nodes() >= nodes) {
                    relinked = (System.nanoTime() - killed) / 1e9;
                    log.printf(Locale.ROOT, "the new hub lists all %d nodes after %.2f s%n", nodes, relinked);
                }
                if (recovered < 0 && relinked >= 0 && bed.held() >= held * 0.9) {
                    recovered = (System.nanoTime() - killed) / 1e9;
                    log.printf(
                            Locale.ROOT,
                            "clients hold %d connections (90 %% of before) after %.2f s%n",
                            bed.held(),
                            recovered);
                }
                if (System.nanoTime() >= nextProgress) {
                    points.add(bed.progress(-1));
                    nextProgress += o.progressSeconds() * 1_000_000_000L;
                }
                Thread.sleep(100);
            }
            log.printf(
                    Locale.ROOT,
                    "connections reset by the crash: %d (client ends)%n",
                    bed.survivorResets() - resetsBefore);
            double left = o.seconds() / 2.0 - (System.nanoTime() - killed) / 1e9;
            if (left > 0) {
                points.addAll(bed.hold(left));
            }
            ProcessSample end = bed.hub().sample();
            String cpuSplit = bed.cpuSplit();
            String why = "";
            try {
                bed.finishAll();
            } catch (RuntimeException e) {
                why = e.getMessage();
            }
            // Resets are what a crash of the hub must cause; anything else (a timeout: a connection that did not
            // notice; a length or digest mismatch: wrong data handed over) is a fault.
            long faults = bed.survivorFailures() - bed.survivorResets() - bed.survivorFailures("connect");
            if (why.isEmpty() && (faults > 0 || bed.survivorCount("mismatched") > 0)) {
                why = "faults other than resets " + RampScenario.failureSummary(bed) + "; first: "
                        + RampScenario.first(bed.failureLines());
            }
            held = Math.max(held, bed.mostHeld());
            return new LoadResult(
                    o,
                    held,
                    0,
                    why,
                    bed.latencies(),
                    mbps,
                    held == 0 ? 0 : mbps * 1e6 / held,
                    bed.streamFairness(),
                    bed.worstWindowFairness(),
                    bed.survivorCount("verified"),
                    bed.survivorCount("lost"),
                    bed.survivorCount("reordered"),
                    bed.survivorResets(),
                    faults,
                    bed.failureLines(),
                    rssIdle,
                    rssLoaded,
                    heapIdle,
                    heapLoaded,
                    end.threads(),
                    end.cpuSeconds() - cpuIdle,
                    relinked,
                    recovered,
                    points,
                    cpuSplit,
                    LoadReport.uptime());
        }
    }
}
