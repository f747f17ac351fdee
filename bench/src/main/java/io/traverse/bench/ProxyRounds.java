package io.traverse.bench;

import io.traverse.bench.JmhRuns.Figure;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.openjdk.jmh.runner.RunnerException;

/**
 * The throughput target through an HTTP proxy, measured side by side: a routed connection through one hub
 * ({@code routed-1}) against the same path with the client's node linked through a real HTTP
 * proxy's CONNECT tunnel (tinyproxy, a child process: {@code routed-1-proxy}), for throughput
 * ({@link Throughput}) and, for information, 1-byte round trips ({@link RoundTrip}); and plain TCP
 * through the same proxy's tunnel without Traverse ({@code proxy-tunnel}), the proxy's own ceiling.
 * If squid is installed, the same two through squid ({@code routed-1-squid}, {@code squid-tunnel}). Rounds rotate
 * the order as {@link RelayRounds} does; meant to run pinned to one core: {@code bench/run-proxy.sh}.
 *
 * <pre>
 * options: --rounds N (3)  --warmup N (12)  --iterations N (5)  --time MS (1000)
 *          --only throughput,rtt (both)  --csv FILE  --verbose
 * </pre>
 */
public final class ProxyRounds {
    private static final double MBPS = Throughput.CHUNK / 1e6;
    /** Routed over a plain link first; then per proxy, routed through it and plain TCP through it. */
    private static final List<String> CONTENDERS = Files.isExecutable(ChildHttpProxy.Kind.SQUID.binary)
            ? List.of("routed-1", "routed-1-proxy", "proxy-tunnel", "routed-1-squid", "squid-tunnel")
            : List.of("routed-1", "routed-1-proxy", "proxy-tunnel");

    private ProxyRounds() {}

    public static void main(String[] args) throws Exception {
        Optional<RoundOptions> parsed =
                RoundOptions.parse("ProxyRounds", args, 3, 12, Set.of("throughput", "rtt"), "throughput,rtt");
        if (parsed.isEmpty()) {
            return;
        }
        RoundOptions o = parsed.get();
        List<String[]> metrics = new ArrayList<>();
        if (o.only().contains("throughput")) {
            metrics.add(new String[] {"throughput", "Throughput.write64k", "MB/s"});
        }
        if (o.only().contains("rtt")) {
            metrics.add(new String[] {"rtt", "RoundTrip.oneByte", "us"});
        }
        System.out.printf(
                Locale.ROOT,
                "ProxyRounds: %d rounds; each run 1 fork, %d warmup + %d measurement iterations of %d ms;"
                        + " CPUs visible to this JVM: %d%n",
                o.rounds(),
                o.settings().warmup(),
                o.settings().iterations(),
                o.settings().timeMillis(),
                Runtime.getRuntime().availableProcessors());
        List<String> failures = new ArrayList<>();
        double[][][] figures = new double[metrics.size()][CONTENDERS.size()][o.rounds()];
        long started = System.nanoTime();
        try (PrintWriter csv = JmhRuns.openCsv(o.csv(), "round,metric,contender,unit,median,mean")) {
            for (int r = 0; r < o.rounds(); r++) {
                for (int mi = 0; mi < metrics.size(); mi++) {
                    String[] m = metrics.get(mi);
                    StringBuilder line = new StringBuilder(
                            String.format(Locale.ROOT, "round %d/%d  %-10s", r + 1, o.rounds(), m[0]));
                    for (int k = 0; k < CONTENDERS.size(); k++) {
                        int ci = (k + r) % CONTENDERS.size();
                        String contender = CONTENDERS.get(ci);
                        Figure f;
                        try {
                            f = JmhRuns.run(m[1], contender, m[0].equals("throughput") ? MBPS : 1, o.settings());
                        } catch (RunnerException | RuntimeException e) {
                            f = Figure.FAILED;
                            failures.add(String.format(
                                    Locale.ROOT,
                                    "round %d %s[%s]: %s",
                                    r + 1,
                                    m[1],
                                    contender,
                                    JmhRuns.rootMessage(e)));
                        }
                        figures[mi][ci][r] = f.median();
                        if (csv != null) {
                            csv.printf(
                                    Locale.ROOT,
                                    "%d,%s,%s,%s,%.4f,%.4f%n",
                                    r + 1,
                                    m[0],
                                    contender,
                                    m[2],
                                    f.median(),
                                    f.mean());
                            csv.flush();
                        }
                    }
                    for (int ci = 0; ci < CONTENDERS.size(); ci++) {
                        line.append(String.format(Locale.ROOT, "  %s %.2f", CONTENDERS.get(ci), figures[mi][ci][r]));
                    }
                    System.out.println(line.append(' ').append(m[2]));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        System.out.printf(
                Locale.ROOT,
                "%nMedians over %d rounds (%.1f min):%n",
                o.rounds(),
                (System.nanoTime() - started) / 60e9);
        for (int mi = 0; mi < metrics.size(); mi++) {
            String[] m = metrics.get(mi);
            for (int ci = 0; ci < CONTENDERS.size(); ci++) {
                double[] f = figures[mi][ci];
                System.out.printf(
                        Locale.ROOT,
                        "  %-10s %-15s %10.2f %-5s (min %.2f, max %.2f)%n",
                        m[0],
                        CONTENDERS.get(ci),
                        JmhRuns.median(f),
                        m[2],
                        JmhRuns.min(f),
                        JmhRuns.max(f));
            }
            for (int proxy = 1; proxy + 1 < CONTENDERS.size(); proxy += 2) {
                String name = CONTENDERS.get(proxy).equals("routed-1-squid") ? "squid" : "tinyproxy";
                double[] paired = new double[o.rounds()];
                double[] ofProxy = new double[o.rounds()];
                for (int r = 0; r < o.rounds(); r++) {
                    paired[r] = m[0].equals("throughput")
                            ? figures[mi][proxy][r] / figures[mi][0][r]
                            : figures[mi][proxy][r] - figures[mi][0][r];
                    ofProxy[r] = figures[mi][proxy][r] / figures[mi][proxy + 1][r];
                }
                if (m[0].equals("throughput")) {
                    double ratio = JmhRuns.median(paired);
                    System.out.printf(
                            Locale.ROOT,
                            "%nTarget: routed throughput over a CONNECT tunnel (%s) >= 0.9x the same"
                                    + " path over a plain TCP link: %.3fx -> %s%n",
                            name,
                            ratio,
                            ratio >= 0.9 ? "MET" : "NOT MET");
                    System.out.printf(
                            Locale.ROOT,
                            "(routed over the tunnel keeps %.3fx of what %s carries for plain TCP, %s)%n",
                            JmhRuns.median(ofProxy),
                            name,
                            CONTENDERS.get(proxy + 1));
                } else {
                    System.out.printf(
                            Locale.ROOT,
                            "(the CONNECT tunnel through %s adds %+.2f us to a 1-byte round trip)%n",
                            name,
                            JmhRuns.median(paired));
                }
            }
        }
        System.out.println("(per-round figures paired: the ratio is the median over rounds of the same-round pairs)");
        JmhRuns.printFailuresAndCsv(failures, o.csv());
    }
}
