package io.traverse.bench.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** The summary block of a load run, in the form docs/benchmarks.md keeps its figures. */
final class LoadReport {
    private LoadReport() {}

    /** {@code uptime}'s load averages, read from /proc/loadavg (the machine's load while the run went). */
    static String uptime() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return "load average " + f[0] + ", " + f[1] + ", " + f[2];
        } catch (IOException e) {
            return "load average unknown";
        }
    }

    static String summary(LoadResult r) {
        LoadOptions o = r.options();
        StringBuilder b = new StringBuilder();
        double mib = 1048576.0;
        int held = Math.max(1, r.held());
        b.append(String.format(
                Locale.ROOT,
                "Load run, harness bench/run-load.sh --mode %s; %d CPUs, %s; java %s%n",
                o.mode(),
                Runtime.getRuntime().availableProcessors(),
                r.machineLoad(),
                System.getProperty("java.version")));
        b.append(String.format(
                Locale.ROOT,
                "  set-up: %s (-Xmx%s, io threads %s), 1 server JVM (%d node(s)), %d client JVM(s) x %d nodes%s;"
                        + " %s; %d B every %d ms per connection%n",
                o.hubs() == 1
                        ? "1 hub JVM"
                        : o.hubs()
                                + " hub JVMs in a line (clients on the first, server on the last; hub figures are the first's)",
                o.hubHeap(),
                o.hubIoThreads() == 0 ? "default" : o.hubIoThreads(),
                o.serverNodes(),
                o.clients(),
                o.nodesPerClient(),
                o.mode().equals("churn") && o.burst() > 0
                        ? " + 1 burst JVM x " + o.burstNodes() + " nodes holding " + o.burst()
                        : "",
                o.transport().equals("plain")
                        ? "CONTROL RUN: plain loopback sockets, no Traverse (nodes idle)"
                        : "traverse.modules=routed",
                o.chunk(),
                o.intervalMillis()));
        if (o.mode().equals("ramp")) {
            b.append(String.format(
                    Locale.ROOT,
                    "  ramp: +%d every %d s up to %d; break on any failure, p99 > %d ms or > %.0f %% late chunks%n",
                    o.step(),
                    o.stepSeconds(),
                    o.maxConnections(),
                    o.p99LimitMillis(),
                    o.lateLimit() * 100));
            b.append("  broke at:           ")
                    .append(r.brokeAt() == 0 ? "did not break" : r.brokeAt() + " connections")
                    .append(" (")
                    .append(r.why())
                    .append(")\n");
        } else if (o.mode().equals("restart")) {
            b.append(String.format(
                    Locale.ROOT,
                    "  restart: mean %d connections, mean lifetime %.1f s, %d s after a %d s ramp; the hub SIGKILLed"
                            + " and started again on its port half-way%n",
                    o.connections(),
                    o.lifetimeMillis() / 1000.0,
                    o.seconds(),
                    o.rampSeconds()));
            b.append(String.format(
                    Locale.ROOT,
                    "  after the crash:    the new hub listed every node in %s, clients held 90 %% of before in %s%n",
                    seconds(r.hubReclaimSeconds()),
                    seconds(r.serverReclaimSeconds())));
            b.append("  resets (expected): ")
                    .append(r.resets())
                    .append(" (at either end: a connection counts at both)")
                    .append("; faults other than resets: ")
                    .append(r.otherFailures())
                    .append(r.why().isEmpty() ? "" : " (" + r.why() + ")")
                    .append('\n');
        } else {
            b.append(String.format(
                    Locale.ROOT,
                    "  churn: mean %d connections, mean lifetime %.1f s, %d s after a %d s ramp; %s of %d connections half-way%n",
                    o.connections(),
                    o.lifetimeMillis() / 1000.0,
                    o.seconds(),
                    o.rampSeconds(),
                    o.burstEnd().equals("drop") ? "silent drop (nft) of the hub links" : "SIGKILL",
                    o.burst()));
            b.append(String.format(
                    Locale.ROOT,
                    "  reclaim:            hub dropped the nodes in %s, server closed the connections in %s%n",
                    seconds(r.hubReclaimSeconds()),
                    seconds(r.serverReclaimSeconds())));
            if (!r.why().isEmpty()) {
                b.append("  fault:              ").append(r.why()).append('\n');
            }
        }
        b.append(String.format(Locale.ROOT, "  connections held:   %d (most at once)%n", r.held()));
        b.append(String.format(
                Locale.ROOT,
                "  throughput:         %.2f MB/s aggregate written, %.0f B/s per connection (pace: %.0f B/s)%n",
                r.mbPerSecond(),
                r.perConnectionBytesPerSecond(),
                o.chunk() * 1000.0 / o.intervalMillis()));
        b.append(String.format(
                Locale.ROOT,
                "  fairness:           %.2f fastest/slowest verified stream (20+ chunks); %s worst 5-s window%n",
                r.streamFairness(),
                Double.isNaN(r.windowFairness()) ? "n/a" : String.format(Locale.ROOT, "%.2f", r.windowFairness())));
        LatencyHistogram l = r.latency();
        b.append(String.format(
                Locale.ROOT,
                "  chunk round trip:   p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.1f ms (%d chunks)%n",
                l.quantileMicros(0.5) / 1e3,
                l.quantileMicros(0.99) / 1e3,
                l.quantileMicros(0.999) / 1e3,
                l.maxMicros() / 1e3,
                l.count()));
        b.append(String.format(
                Locale.ROOT,
                "  streams verified:   %d (length + SHA-256 after half-close)%s; lost %d B, reordered %d, resets %d, other failures %d%n",
                r.verified(),
                o.mode().equals("churn") ? " on survivors" : "",
                r.lostBytes(),
                r.reordered(),
                r.resets(),
                r.otherFailures()));
        b.append(String.format(
                Locale.ROOT,
                "  hub RSS:            %.1f MiB idle, %.1f MiB loaded = %.1f KiB per connection%n",
                r.hubRssIdle() / mib,
                r.hubRssLoaded() / mib,
                (r.hubRssLoaded() - r.hubRssIdle()) / 1024.0 / held));
        b.append(String.format(
                Locale.ROOT,
                "  hub heap after GC:  %.1f MiB idle, %.1f MiB loaded = %.2f KiB per connection%n",
                r.hubHeapIdle() / mib,
                r.hubHeapLoaded() / mib,
                (r.hubHeapLoaded() - r.hubHeapIdle()) / 1024.0 / held));
        b.append(String.format(
                Locale.ROOT,
                "  hub threads, CPU:   %d threads; %.1f CPU s over the run = %.1f ms per connection%n",
                r.hubThreads(),
                r.hubCpuSeconds(),
                r.hubCpuSeconds() * 1000 / held));
        b.append("  CPU by process:     ").append(r.cpuSplit()).append('\n');
        if (!r.failureLines().isEmpty()) {
            b.append("  first failures:\n");
            List<String> lines = r.failureLines();
            for (int i = 0; i < Math.min(8, lines.size()); i++) {
                b.append("    ").append(lines.get(i)).append('\n');
            }
        }
        return b.toString();
    }

    private static String seconds(double s) {
        return Double.isNaN(s) ? "n/a" : s < 0 ? "NEVER (within the limit)" : String.format(Locale.ROOT, "%.2f s", s);
    }
}
