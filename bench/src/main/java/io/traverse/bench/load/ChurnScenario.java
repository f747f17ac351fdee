package io.traverse.bench.load;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The stress test of CastGate's section V on the hub, with the burst that made CastGate's server
 * unstable: the surviving clients keep a mean of {@code --connections} connected, each living an
 * exponentially distributed time of mean {@code --lifetime-ms} before it half-closes, is verified
 * and is replaced; one more client JVM holds {@code --burst} long-lived connections and is
 * SIGKILLed half-way through {@code --seconds} (or, with {@code --burst-end drop}, its links to the
 * hub fall silent, {@link SilentDrop}; it is killed once the hub and the server have let go). Measures how long the hub takes to drop the dead
 * JVM's nodes and the server to close its connections, and then checks that every surviving
 * stream verified: bytes lost, reordered and resets on survivors must all be 0.
 */
final class ChurnScenario {
    private ChurnScenario() {}

    static LoadResult run(LoadOptions o, PrintStream log) throws IOException, InterruptedException {
        try (LoadBed bed = new LoadBed(o, log)) {
            boolean withBurst = o.burst() > 0;
            bed.start(withBurst);
            long heapIdle = bed.hub().heapAfterGc();
            long rssIdle = bed.hub().sample().rssBytes(); // after the GC, as the loaded figure is
            double cpuIdle = bed.hub().sample().cpuSeconds();
            long rampMillis = o.rampSeconds() * 1000L;
            bed.share("CHURN %d " + o.lifetimeMillis() + " " + rampMillis, o.connections());
            if (withBurst) {
                bed.burst().send("OPEN " + o.burst() + " " + rampMillis);
            }
            List<LoadResult.Point> points = new ArrayList<>(bed.hold(o.rampSeconds() + 5));
            long sentBefore = bed.sent();
            long t0 = System.nanoTime();
            points.addAll(bed.hold(o.seconds() / 2.0));
            int held = bed.held();
            long heapLoaded = bed.hub().heapAfterGc();
            long rssLoaded = bed.hub().sample().rssBytes();
            double mbps = (bed.sent() - sentBefore) / 1e6 / ((System.nanoTime() - t0) / 1e9);
            log.printf(
                    Locale.ROOT,
                    "HELD %d connections: %.2f MB/s, hub heap %.1f MiB rss %.1f MiB%n",
                    held,
                    mbps,
                    heapLoaded / 1048576.0,
                    rssLoaded / 1048576.0);
            double hubReclaim = Double.NaN;
            double serverReclaim = Double.NaN;
            if (withBurst) {
                int burstGroup = bed.burst().group();
                int expectedNodes =
                        o.clients() * o.nodesPerClient() + (o.hubs() == 1 ? o.serverNodes() : 0); // on the clients' hub
                long burstHeld = bed.burst().stat().get("held");
                boolean drop = o.burstEnd().equals("drop");
                log.println(
                        (drop ? "DROP the burst JVM's hub links silently (nft): " : "KILL the burst JVM (SIGKILL): ")
                                + burstHeld
                                + " connections, " + o.burstNodes() + " nodes; hub lists "
                                + bed.hub().nodes() + " nodes, server has "
                                + bed.server().open(burstGroup) + " of its connections open");
                long killed = System.nanoTime();
                SilentDrop silence = null;
                if (drop) {
                    silence = bed.closeLater(
                            SilentDrop.of(bed.burst().pid(), bed.hub().port()));
                    log.println("dropping " + silence.ports().size() + " links");
                } else {
                    bed.burst().kill();
                }
                long limit = killed + (o.readTimeoutMillis() + 30_000L) * 1_000_000L;
                long nextProgress = killed + o.progressSeconds() * 1_000_000_000L;
                hubReclaim = -1;
                serverReclaim = -1;
                while (System.nanoTime() < limit && (hubReclaim < 0 || serverReclaim < 0)) {
                    bed.check();
                    if (hubReclaim < 0 && bed.hub().nodes() <= expectedNodes) {
                        hubReclaim = (System.nanoTime() - killed) / 1e9;
                        log.printf(Locale.ROOT, "hub lists none of the killed nodes after %.2f s%n", hubReclaim);
                    }
                    if (serverReclaim < 0 && bed.server().open(burstGroup) == 0) {
                        serverReclaim = (System.nanoTime() - killed) / 1e9;
                        log.printf(
                                Locale.ROOT,
                                "server has closed every connection of the killed JVM after %.2f s (it reports 4 times a second)%n",
                                serverReclaim);
                    }
                    if (System.nanoTime() > nextProgress) {
                        points.add(bed.progress(-1));
                        nextProgress += o.progressSeconds() * 1_000_000_000L;
                    }
                    Thread.sleep(100);
                }
                if (silence != null) {
                    bed.burst().kill(); // while its links are still silent: nothing of it reaches the hub again
                    silence.close();
                }
                double left = o.seconds() / 2.0 - (System.nanoTime() - killed) / 1e9;
                if (left > 0) {
                    points.addAll(bed.hold(left));
                }
            } else {
                points.addAll(bed.hold(o.seconds() / 2.0));
            }
            ProcessSample end = bed.hub().sample();
            String cpuSplit = bed.cpuSplit();
            String why = "";
            try {
                bed.finishAll();
            } catch (RuntimeException e) {
                why = e.getMessage();
            }
            if (why.isEmpty() && bed.survivorFailures() > 0) {
                why = "failures on survivors " + RampScenario.failureSummary(bed) + "; first: "
                        + RampScenario.first(bed.survivorFailureLines());
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
                    bed.survivorFailures() - bed.survivorResets(),
                    bed.failureLines(),
                    rssIdle,
                    rssLoaded,
                    heapIdle,
                    heapLoaded,
                    end.threads(),
                    end.cpuSeconds() - cpuIdle,
                    hubReclaim,
                    serverReclaim,
                    points,
                    cpuSplit,
                    LoadReport.uptime());
        }
    }
}
