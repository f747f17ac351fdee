package io.traverse.bench;

import io.traverse.bench.JmhRuns.Figure;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.openjdk.jmh.runner.RunnerException;

/**
 * Runs the plain and Traverse contenders of each metric alternately, round by round (each run a
 * short JMH run in its own fork), so that drift of the machine hits both alike; prints per-round
 * figures, medians over the rounds and the Traverse/plain ratio, and checks the direct
 * module's targets (docs/benchmarks.md). The order within a pair flips every round. Meant to run pinned to one core,
 * {@code taskset -c 0 java -cp bench/target/benchmarks.jar io.traverse.bench.DirectRounds}
 * (see {@code bench/run-direct.sh}); the JMH forks inherit the affinity.
 *
 * <p>The figure of one run is a median, so that a burst of foreign load does not move it much:
 * for setup the median of all sampled operations (JMH SampleTime), for throughput and RTT the
 * median of the measurement iterations. The JMH mean is printed beside it and kept in the CSV.
 *
 * <pre>
 * options: --rounds N (7)  --warmup N (4)  --iterations N (5)  --time MS (1000)
 *          --only setup,throughput,rtt,extra,diag (setup,throughput,rtt)  --csv FILE  --verbose
 * </pre>
 */
public final class DirectRounds {
    /** One JMH benchmark with its contender parameter; {@code scale} turns its unit into the metric's. */
    private record Run(String benchmark, String contender, double scale) {
        String label() {
            return benchmark + "[" + contender + "]";
        }
    }

    private interface Target {
        /**
         * A sentence: what the target is, the figure, and met or not. Judged on the paired figures
         * (plain and Traverse of the same round): the median of the per-round ratios and differences.
         */
        String verdict(double ratio, double difference);
    }

    /** A comparison: a plain run, a Traverse run, and the target between them. */
    private record Metric(String name, String unit, Run plain, Run traverse, Target target) {}

    private static final double MBPS = Throughput.CHUNK / 1e6; // chunks/s -> MB/s (10^6 bytes)

    private static List<Metric> metrics(Set<String> only) {
        List<Metric> out = new ArrayList<>();
        if (only.contains("setup")) {
            out.add(new Metric(
                    "setup",
                    "us",
                    new Run("ConnectSetup.firstByte", "plain", 1),
                    new Run("ConnectSetup.usable", "traverse", 1),
                    (ratio, diff) -> String.format(
                            Locale.ROOT,
                            "cached direct setup <= 2x plain connect+first byte: %.2fx -> %s",
                            ratio,
                            ratio <= 2 ? "MET" : "NOT MET")));
        }
        if (only.contains("throughput")) {
            out.add(new Metric(
                    "throughput",
                    "MB/s",
                    new Run("Throughput.write64k", "plain", MBPS),
                    new Run("Throughput.write64k", "traverse", MBPS),
                    (ratio, diff) -> String.format(
                            Locale.ROOT,
                            "throughput >= 0.98x plain: %.3fx -> %s",
                            ratio,
                            ratio >= 0.98 ? "MET" : "NOT MET")));
        }
        if (only.contains("rtt")) {
            out.add(new Metric(
                    "rtt",
                    "us",
                    new Run("RoundTrip.oneByte", "plain", 1),
                    new Run("RoundTrip.oneByte", "traverse", 1),
                    (ratio, diff) -> String.format(
                            Locale.ROOT,
                            "1-byte RTT within 1 us of plain: %+.2f us -> %s",
                            diff,
                            diff <= 1.0 ? "MET" : "NOT MET")));
        }
        if (only.contains("extra")) {
            out.add(new Metric(
                    "connect-only",
                    "us",
                    new Run("ConnectSetup.usable", "plain", 1),
                    new Run("ConnectSetup.usable", "traverse", 1),
                    (ratio, diff) -> String.format(
                            Locale.ROOT,
                            "(no target) Traverse usable vs plain connect without first byte: %.2fx",
                            ratio)));
            out.add(new Metric(
                    "first-byte",
                    "us",
                    new Run("ConnectSetup.firstByte", "plain", 1),
                    new Run("ConnectSetup.firstByte", "traverse", 1),
                    (ratio, diff) -> String.format(
                            Locale.ROOT, "(no target) both reading the server's first byte: %.2fx", ratio)));
        }
        if (only.contains("diag")) {
            out.add(new Metric(
                    "thr-channel",
                    "MB/s",
                    new Run("Throughput.write64k", "plain", MBPS),
                    new Run("Throughput.write64k", "plain-channel", MBPS),
                    (ratio, diff) -> String.format(
                            Locale.ROOT,
                            "(diagnostic) throughput, server side accepted as a SocketChannel, vs plain: %.3fx",
                            ratio)));
            out.add(new Metric(
                    "rtt-channel",
                    "us",
                    new Run("RoundTrip.oneByte", "plain", 1),
                    new Run("RoundTrip.oneByte", "plain-channel", 1),
                    (ratio, diff) -> String.format(
                            Locale.ROOT,
                            "(diagnostic) RTT, server side accepted as a SocketChannel, vs plain: %+.2f us",
                            diff)));
        }
        return out;
    }

    private final int rounds;
    private final int warmup;
    private final int iterations;
    private final int timeMillis;
    private final boolean verbose;
    private final List<Metric> metrics;
    private final Path csv;

    private DirectRounds(
            int rounds, int warmup, int iterations, int timeMillis, boolean verbose, List<Metric> metrics, Path csv) {
        this.rounds = rounds;
        this.warmup = warmup;
        this.iterations = iterations;
        this.timeMillis = timeMillis;
        this.verbose = verbose;
        this.metrics = metrics;
        this.csv = csv;
    }

    public static void main(String[] args) throws Exception {
        Optional<RoundOptions> parsed = RoundOptions.parse(
                "DirectRounds", args, 7, 4, Set.of("setup", "throughput", "rtt"), "setup,throughput,rtt,extra,diag");
        if (parsed.isEmpty()) {
            return;
        }
        RoundOptions o = parsed.get();
        List<Metric> metrics = metrics(o.only());
        if (metrics.isEmpty()) {
            throw new IllegalArgumentException("--only names no known metric (setup, throughput, rtt, extra, diag)");
        }
        JmhRuns.Settings s = o.settings();
        new DirectRounds(o.rounds(), s.warmup(), s.iterations(), s.timeMillis(), s.verbose(), metrics, o.csv()).run();
    }

    private void run() throws IOException {
        int cpus = Runtime.getRuntime().availableProcessors();
        System.out.printf(
                Locale.ROOT,
                "DirectRounds: %d rounds x %d metrics x 2 contenders; each run 1 fork, %d warmup + %d"
                        + " measurement iterations of %d ms; CPUs visible to this JVM: %d%n",
                rounds,
                metrics.size(),
                warmup,
                iterations,
                timeMillis,
                cpus);
        if (cpus != 1) {
            System.out.println("warning: not pinned to one core; run under `taskset -c 0` for comparable figures");
        }
        Figure[][][] figures = new Figure[metrics.size()][rounds][2]; // [metric][round][0 plain, 1 traverse]
        List<String> failures = new ArrayList<>();
        PrintWriter csvOut = openCsv();
        long started = System.nanoTime();
        try {
            for (int r = 0; r < rounds; r++) {
                for (int mi = 0; mi < metrics.size(); mi++) {
                    Metric m = metrics.get(mi);
                    boolean plainFirst = r % 2 == 0;
                    for (int k = 0; k < 2; k++) {
                        int which = (k == 0) == plainFirst ? 0 : 1;
                        Run run = which == 0 ? m.plain : m.traverse;
                        Figure f;
                        try {
                            f = runOnce(run);
                        } catch (RunnerException | RuntimeException e) {
                            f = Figure.FAILED;
                            String why = JmhRuns.rootMessage(e);
                            failures.add(String.format(Locale.ROOT, "round %d %s: %s", r + 1, run.label(), why));
                            System.out.printf(
                                    Locale.ROOT, "round %d/%d  %s FAILED: %s%n", r + 1, rounds, run.label(), why);
                        }
                        figures[mi][r][which] = f;
                        if (csvOut != null) {
                            csvOut.printf(
                                    Locale.ROOT,
                                    "%d,%s,%s,%s,%s,%.4f,%.4f%n",
                                    r + 1,
                                    m.name,
                                    which == 0 ? "plain" : "traverse",
                                    run.label(),
                                    m.unit,
                                    f.median(),
                                    f.mean());
                            csvOut.flush();
                        }
                    }
                    Figure p = figures[mi][r][0];
                    Figure t = figures[mi][r][1];
                    System.out.printf(
                            Locale.ROOT,
                            "round %d/%d  %-12s plain %9.2f  traverse %9.2f %-5s ratio %6.3f"
                                    + "   (means %.2f / %.2f)%n",
                            r + 1,
                            rounds,
                            m.name,
                            p.median(),
                            t.median(),
                            m.unit,
                            t.median() / p.median(),
                            p.mean(),
                            t.mean());
                }
            }
        } finally {
            if (csvOut != null) {
                csvOut.close();
            }
        }
        System.out.printf(
                Locale.ROOT, "%nMedians over %d rounds (%.1f min):%n", rounds, (System.nanoTime() - started) / 60e9);
        System.out.printf(
                Locale.ROOT,
                "%-12s %-5s %10s %10s %8s %12s %11s %11s %11s %11s   %s%n",
                "metric",
                "unit",
                "plain",
                "traverse",
                "ratio",
                "round ratio",
                "round diff",
                "plain min",
                "plain max",
                "trav. mean",
                "benchmarks (plain vs traverse)");
        double[][] summary = new double[metrics.size()][2];
        for (int mi = 0; mi < metrics.size(); mi++) {
            Metric m = metrics.get(mi);
            Figure[][] f = figures[mi];
            double p = JmhRuns.median(pick(f, 0, true));
            double t = JmhRuns.median(pick(f, 1, true));
            double[] ratios = new double[rounds];
            double[] diffs = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ratios[r] = f[r][1].median() / f[r][0].median();
                diffs[r] = f[r][1].median() - f[r][0].median();
            }
            double[] plainFigures = pick(f, 0, true);
            summary[mi][0] = JmhRuns.median(ratios);
            summary[mi][1] = JmhRuns.median(diffs);
            System.out.printf(
                    Locale.ROOT,
                    "%-12s %-5s %10.2f %10.2f %8.3f %12.3f %+11.2f %11.2f %11.2f %11.2f   %s vs %s%n",
                    m.name,
                    m.unit,
                    p,
                    t,
                    t / p,
                    JmhRuns.median(ratios),
                    JmhRuns.median(diffs),
                    JmhRuns.min(plainFigures),
                    JmhRuns.max(plainFigures),
                    JmhRuns.median(pick(f, 1, false)),
                    m.plain.label(),
                    m.traverse.label());
        }
        System.out.println(
                "(plain, traverse: medians over the rounds; ratio: of those medians; round ratio/diff: median of the"
                        + " per-round Traverse/plain ratios and differences; plain min/max: spread over the rounds; trav. mean:"
                        + " median of the JMH means)");
        System.out.println();
        System.out.println("Targets:");
        for (int mi = 0; mi < metrics.size(); mi++) {
            Metric m = metrics.get(mi);
            double ratio = summary[mi][0];
            double diff = summary[mi][1];
            System.out.println("  "
                    + (Double.isNaN(ratio)
                            ? m.name + ": NOT MEASURED (no round where both contenders ran)"
                            : m.target.verdict(ratio, diff)));
        }
        JmhRuns.printFailuresAndCsv(failures, csv);
    }

    private PrintWriter openCsv() throws IOException {
        return JmhRuns.openCsv(csv, "round,metric,contender,benchmark,unit,median,mean");
    }

    private Figure runOnce(Run run) throws RunnerException {
        return JmhRuns.run(
                run.benchmark, run.contender, run.scale, new JmhRuns.Settings(warmup, iterations, timeMillis, verbose));
    }

    private static double[] pick(Figure[][] f, int which, boolean median) {
        double[] out = new double[f.length];
        for (int r = 0; r < f.length; r++) {
            out[r] = median ? f[r][which].median() : f[r][which].mean();
        }
        return out;
    }
}
