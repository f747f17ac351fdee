package io.traverse.bench;

import io.traverse.bench.JmhRuns.Figure;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.openjdk.jmh.runner.RunnerException;

/**
 * The relay targets, measured side by side: plain loopback TCP, a {@code socat} relay and
 * Traverse's routed module through one, two and three hubs (each hub a JVM of its own; through one
 * hub also without data links, {@code routed-1-link}, the path before them), and the floor: one to
 * three minimal C relays in a line ({@code c-relay-N}, {@code bench/native/epoll-relay.c}), for
 * throughput ({@link Throughput}) and 1-byte round trips ({@link RoundTrip}). Every round runs
 * each contender once, in a fork of its own, in an order that rotates from round to round, so
 * drift of the machine hits all alike. Meant to run pinned to one core (the forks, hubs and socat
 * inherit the affinity): {@code bench/run-routed.sh}. The warm-up is long (12 s by default)
 * because each run starts fresh hub JVMs, whose JIT shares the one core with the traffic.
 *
 * <pre>
 * options: --rounds N (5)  --warmup N (12)  --iterations N (5)  --time MS (1000)
 *          --only throughput,rtt (both)  --csv FILE  --verbose
 * </pre>
 */
public final class RelayRounds {
    private static final double MBPS = Throughput.CHUNK / 1e6; // chunks/s -> MB/s (10^6 bytes)

    /** One metric: a benchmark, its contenders, the unit. */
    private record Metric(String name, String benchmark, String unit, double scale, List<String> contenders) {}

    private final int rounds;
    private final JmhRuns.Settings settings;
    private final List<Metric> metrics;
    private final Path csv;

    private RelayRounds(int rounds, JmhRuns.Settings settings, List<Metric> metrics, Path csv) {
        this.rounds = rounds;
        this.settings = settings;
        this.metrics = metrics;
        this.csv = csv;
    }

    public static void main(String[] args) throws Exception {
        Optional<RoundOptions> parsed =
                RoundOptions.parse("RelayRounds", args, 5, 12, Set.of("throughput", "rtt"), "throughput,rtt");
        if (parsed.isEmpty()) {
            return;
        }
        RoundOptions o = parsed.get();
        Set<String> only = o.only();
        boolean floor = Files.isExecutable(ChildRelay.EPOLL_RELAY);
        if (!floor) {
            System.out.println("note: " + ChildRelay.EPOLL_RELAY + " is missing, so the c-relay floor is not measured"
                    + " (bench/run-routed.sh builds it when gcc is installed)");
        }
        List<Metric> metrics = new ArrayList<>();
        if (only.contains("throughput")) {
            metrics.add(new Metric(
                    "throughput",
                    "Throughput.write64k",
                    "MB/s",
                    MBPS,
                    contenders(floor, List.of("plain", "socat", "routed-1", "routed-1-link"), List.of("c-relay-1"))));
        }
        if (only.contains("rtt")) {
            metrics.add(new Metric(
                    "rtt",
                    "RoundTrip.oneByte",
                    "us",
                    1,
                    contenders(
                            floor,
                            List.of("plain", "socat", "routed-1", "routed-1-link", "routed-2", "routed-3"),
                            List.of("c-relay-1", "c-relay-2", "c-relay-3"))));
        }
        if (metrics.isEmpty()) {
            throw new IllegalArgumentException("--only names no known metric (throughput, rtt)");
        }
        new RelayRounds(o.rounds(), o.settings(), metrics, o.csv()).run();
    }

    private static List<String> contenders(boolean floor, List<String> always, List<String> floorContenders) {
        List<String> all = new ArrayList<>(always);
        if (floor) {
            all.addAll(floorContenders);
        }
        return all;
    }

    private void run() throws IOException {
        int cpus = Runtime.getRuntime().availableProcessors();
        System.out.printf(
                Locale.ROOT,
                "RelayRounds: %d rounds; each run 1 fork, %d warmup + %d measurement iterations of %d ms;"
                        + " CPUs visible to this JVM: %d%n",
                rounds,
                settings.warmup(),
                settings.iterations(),
                settings.timeMillis(),
                cpus);
        if (cpus != 1) {
            System.out.println("warning: not pinned to one core; run under `taskset -c 0` for comparable figures");
        }
        List<String> failures = new ArrayList<>();
        double[][][] figures = new double[metrics.size()][][];
        long started = System.nanoTime();
        try (PrintWriter csvOut = openCsv()) {
            for (int mi = 0; mi < metrics.size(); mi++) {
                figures[mi] = new double[metrics.get(mi).contenders().size()][rounds];
            }
            for (int r = 0; r < rounds; r++) {
                for (int mi = 0; mi < metrics.size(); mi++) {
                    Metric m = metrics.get(mi);
                    int n = m.contenders().size();
                    StringBuilder line = new StringBuilder(
                            String.format(Locale.ROOT, "round %d/%d  %-10s", r + 1, rounds, m.name()));
                    for (int k = 0; k < n; k++) {
                        int ci = (k + r) % n; // rotate the order from round to round
                        String contender = m.contenders().get(ci);
                        Figure f;
                        try {
                            f = JmhRuns.run(m.benchmark(), contender, m.scale(), settings);
                        } catch (RunnerException | RuntimeException e) {
                            f = Figure.FAILED;
                            failures.add(String.format(
                                    Locale.ROOT,
                                    "round %d %s[%s]: %s",
                                    r + 1,
                                    m.benchmark(),
                                    contender,
                                    JmhRuns.rootMessage(e)));
                        }
                        figures[mi][ci][r] = f.median();
                        if (csvOut != null) {
                            csvOut.printf(
                                    Locale.ROOT,
                                    "%d,%s,%s,%s,%.4f,%.4f%n",
                                    r + 1,
                                    m.name(),
                                    contender,
                                    m.unit(),
                                    f.median(),
                                    f.mean());
                            csvOut.flush();
                        }
                    }
                    for (int ci = 0; ci < n; ci++) {
                        line.append(String.format(
                                Locale.ROOT, "  %s %.2f", m.contenders().get(ci), figures[mi][ci][r]));
                    }
                    System.out.println(line.append(' ').append(m.unit()));
                }
            }
        }
        System.out.printf(
                Locale.ROOT, "%nMedians over %d rounds (%.1f min):%n", rounds, (System.nanoTime() - started) / 60e9);
        List<String> verdicts = new ArrayList<>();
        for (int mi = 0; mi < metrics.size(); mi++) {
            Metric m = metrics.get(mi);
            double[][] f = figures[mi];
            for (int ci = 0; ci < m.contenders().size(); ci++) {
                System.out.printf(
                        Locale.ROOT,
                        "  %-10s %-9s %10.2f %-5s (min %.2f, max %.2f)%n",
                        m.name(),
                        m.contenders().get(ci),
                        JmhRuns.median(f[ci]),
                        m.unit(),
                        JmhRuns.min(f[ci]),
                        JmhRuns.max(f[ci]));
            }
            int plain = m.contenders().indexOf("plain");
            int socatAt = m.contenders().indexOf("socat");
            int routed1 = m.contenders().indexOf("routed-1");
            if (m.name().equals("throughput")) {
                double ofPlain = JmhRuns.median(perRound(f[routed1], f[plain], false));
                double ofSocat = JmhRuns.median(perRound(f[routed1], f[socatAt], false));
                verdicts.add(String.format(
                        Locale.ROOT,
                        "routed throughput through one hub >= 0.5x plain loopback: %.3fx -> %s",
                        ofPlain,
                        ofPlain >= 0.5 ? "MET" : "NOT MET"));
                verdicts.add(String.format(
                        Locale.ROOT,
                        "routed throughput through one hub >= 1.5x socat: %.3fx -> %s",
                        ofSocat,
                        ofSocat >= 1.5 ? "MET" : "NOT MET"));
            } else {
                double socat = JmhRuns.median(perRound(f[socatAt], f[plain], true));
                System.out.printf(Locale.ROOT, "  (socat relay adds %+.2f us)%n", socat);
                for (int relays = 1; relays <= 3 && m.contenders().contains("c-relay-" + relays); relays++) {
                    double floorAdded =
                            JmhRuns.median(perRound(f[m.contenders().indexOf("c-relay-" + relays)], f[plain], true));
                    System.out.printf(
                            Locale.ROOT,
                            "  (floor: %d minimal C relay(s) add %+.2f us; the target for %d hub(s) allows %+.0f us)%n",
                            relays,
                            floorAdded,
                            relays,
                            25 + 20.0 * (relays - 1));
                }
                for (int hubs = 1; hubs <= 3; hubs++) {
                    double added =
                            JmhRuns.median(perRound(f[m.contenders().indexOf("routed-" + hubs)], f[plain], true));
                    double allowed = 25 + 20 * (hubs - 1);
                    verdicts.add(String.format(
                            Locale.ROOT,
                            "routed 1-byte RTT through %d hub(s) <= plain + %.0f us: %+.2f us -> %s",
                            hubs,
                            allowed,
                            added,
                            added <= allowed ? "MET" : "NOT MET"));
                }
            }
        }
        System.out.println(
                "(per-round figures paired: ratios and differences are medians over the rounds of the same-round pairs)");
        System.out.println();
        System.out.println("Targets:");
        verdicts.forEach(v -> System.out.println("  " + v));
        JmhRuns.printFailuresAndCsv(failures, csv);
    }

    /** Per round: a/b, or a-b with {@code difference}. */
    private double[] perRound(double[] a, double[] b, boolean difference) {
        double[] out = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            out[r] = difference ? a[r] - b[r] : a[r] / b[r];
        }
        return out;
    }

    private PrintWriter openCsv() throws IOException {
        return JmhRuns.openCsv(csv, "round,metric,contender,unit,median,mean");
    }
}
