package io.traverse.cli.demo;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** Prints demo results as a table a person reads at a glance. */
final class ResultTable {
    private ResultTable() {}

    static void print(PrintStream out, List<PairResult> results) {
        String format = "%-20s %-11s %11s %12s %9s %12s  %s%n";
        out.printf(
                Locale.ROOT, format, "pair", "module", "first setup", "cached setup", "RTT", "throughput", "verified");
        out.println("-".repeat(103));
        for (PairResult r : results) {
            String pair = r.from() + " -> " + r.to();
            if (r.connected()) {
                out.printf(
                        Locale.ROOT,
                        format,
                        pair,
                        r.module(),
                        time(r.firstSetup()),
                        time(r.cachedSetup()),
                        time(r.medianRtt()),
                        String.format(Locale.ROOT, "%,.0f MB/s", r.megabytesPerSecond()),
                        mib(r.bytesVerified()) + " sha256 ok" + mark(r));
            } else {
                out.printf(Locale.ROOT, "%-20s %-11s %s%s%n", pair, r.module(), r.failure(), mark(r));
            }
        }
    }

    private static String mark(PairResult r) {
        return r.asExpected() ? "" : "   <-- UNEXPECTED (expected " + r.expected().shown + ")";
    }

    static String time(Duration d) {
        long nanos = d.toNanos();
        if (nanos < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f us", nanos / 1e3);
        }
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

    private static String mib(long bytes) {
        return bytes % (1024 * 1024) == 0 ? bytes / (1024 * 1024) + " MiB" : bytes + " B";
    }
}
