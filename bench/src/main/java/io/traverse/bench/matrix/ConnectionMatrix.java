package io.traverse.bench.matrix;

import io.traverse.testbed.ExpectedPath;
import io.traverse.testbed.MultiSiteNetwork;
import io.traverse.testbed.RoundTripResult;
import io.traverse.testbed.RunningNode;
import io.traverse.testbed.SiteLine;
import io.traverse.testbed.Testbed;
import io.traverse.testbed.TransferResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The paper's connection matrix (§4, Tables 3-5) on the namespace testbed: every ordered pair of
 * the sites' compute nodes, plain {@code java.net.Socket} against Traverse — the module that won,
 * a cold JVM's first connection, a settled node's first and cached setup, round trips and a large
 * transfer checked with SHA-256 — each beside what the topology predicts ({@link ExpectedPath}).
 * By default the paper's six sites (Table 2) and a proxy-only site (not in the paper).
 * Prints Markdown in the paper's layout (target rows, source columns) and optionally writes JSON;
 * exits 1 if any pair differs from the prediction. Run it with {@code bench/run-matrix.sh}.
 */
public final class ConnectionMatrix {
    private static final String TOKEN = "bench-matrix-token";
    /** Long enough for six hub JVMs and seven node JVMs on two cores to start and gossip. */
    private static final Duration SETTLE = Duration.ofSeconds(60);
    /** How long a pair whose first connection another module won may take to have its expected module cached. */
    private static final Duration UPGRADE = Duration.ofSeconds(10);

    private ConnectionMatrix() {}

    public static void main(String[] args) throws Exception {
        MatrixOptions options = MatrixOptions.parse(args);
        List<SiteLine> sites = options.siteLines();
        long start = System.nanoTime();
        MatrixResult result;
        try (Testbed testbed = Testbed.create().wanLatency(options.wanLatency())) {
            MultiSiteNetwork network = MultiSiteNetwork.build(testbed, sites, TOKEN);
            network.startNodes(SETTLE);
            long settled = System.nanoTime();
            System.err.printf("network of %d sites up in %.1f s%n", sites.size(), (settled - start) / 1e9);
            result = run(network, options);
        }
        System.out.println(MatrixReport.markdown(result));
        if (options.json().isPresent()) {
            Files.writeString(options.json().get(), MatrixReport.json(result), StandardCharsets.UTF_8);
        }
        System.err.printf("matrix done in %.1f s%n", (System.nanoTime() - start) / 1e9);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Measures every ordered pair of {@code network}'s sites (its nodes must be running). */
    public static MatrixResult run(MultiSiteNetwork network, MatrixOptions options) throws Exception {
        List<SiteLine> lines = network.sites().stream()
                .map(MultiSiteNetwork.SiteMachines::line)
                .toList();
        List<SiteLine[]> pairs = new ArrayList<>();
        for (SiteLine source : lines) {
            for (SiteLine target : lines) {
                if (source != target) {
                    pairs.add(new SiteLine[] {source, target});
                }
            }
        }
        long coldStart = System.nanoTime();
        Map<String, TransferResult> cold = options.cold() ? coldConnects(network, pairs, options) : Map.of();
        System.err.printf("%d cold JVMs in %.1f s%n", cold.size(), (System.nanoTime() - coldStart) / 1e9);
        long settledStart = System.nanoTime();
        Map<String, TransferResult> plain = plainProbes(network, lines, pairs, options);
        System.err.printf("%d plain probes in %.1f s%n", plain.size(), (System.nanoTime() - settledStart) / 1e9);
        List<PairResult> results = new ArrayList<>();
        for (SiteLine[] pair : pairs) {
            String key = key(pair[0], pair[1]);
            results.add(
                    measure(network, pair[0], pair[1], options, plain.get(key), Optional.ofNullable(cold.get(key))));
        }
        System.err.printf("%d settled pairs in %.1f s%n", results.size(), (System.nanoTime() - settledStart) / 1e9);
        return new MatrixResult(lines, options, results);
    }

    /** Fresh JVMs, each connecting the moment its node is up; {@code coldParallel} at a time. */
    private static Map<String, TransferResult> coldConnects(
            MultiSiteNetwork network, List<SiteLine[]> pairs, MatrixOptions options) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(options.coldParallel());
        try {
            Map<String, Future<TransferResult>> futures = new LinkedHashMap<>();
            for (SiteLine[] pair : pairs) {
                MultiSiteNetwork.SiteMachines source = network.site(pair[0].name());
                RunningNode target = network.node(pair[1].name());
                futures.put(key(pair[0], pair[1]), threads.submit(() -> {
                    StringBuilder agentLog = new StringBuilder();
                    TransferResult r = RunningNode.coldConnect(
                            source.node(),
                            network.nodeSettings(source.name()),
                            target.address(),
                            options.coldBytes(),
                            options.timeout(),
                            agentLog::append);
                    if (!r.ok()) { // both ends' last lines, where the reason is
                        System.err.printf(
                                "cold %s -> %s failed: %s%n  the cold JVM's log:%n%s%n  the target's log:%n%s%n",
                                pair[0].name(), pair[1].name(), r, agentLog, target.recentLog());
                    }
                    return r;
                }));
            }
            Map<String, TransferResult> results = new LinkedHashMap<>();
            for (Map.Entry<String, Future<TransferResult>> e : futures.entrySet()) {
                results.put(e.getKey(), e.getValue().get());
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }

    /**
     * Whether a plain socket gets from each source to each target: every source's probes in a thread
     * of their own, one after another. Most of them fail by timeout (a dropped SYN), and in series
     * these waits were most of a settled matrix's time; probes from different sources do not meet on
     * any path that a dropped SYN holds up.
     */
    private static Map<String, TransferResult> plainProbes(
            MultiSiteNetwork network, List<SiteLine> lines, List<SiteLine[]> pairs, MatrixOptions options)
            throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(lines.size());
        try {
            Map<String, Future<Map<String, TransferResult>>> bySource = new LinkedHashMap<>();
            for (SiteLine source : lines) {
                bySource.put(source.name(), threads.submit(() -> {
                    Map<String, TransferResult> probes = new LinkedHashMap<>();
                    for (SiteLine[] pair : pairs) {
                        if (pair[0] == source) {
                            probes.put(
                                    key(pair[0], pair[1]),
                                    network.node(source.name())
                                            .plainConnect(
                                                    network.plainService(pair[1].name()),
                                                    options.checkBytes(),
                                                    options.plainTimeout()));
                        }
                    }
                    return probes;
                }));
            }
            Map<String, TransferResult> results = new LinkedHashMap<>();
            for (Future<Map<String, TransferResult>> f : bySource.values()) {
                results.putAll(f.get());
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }

    private static PairResult measure(
            MultiSiteNetwork network,
            SiteLine sourceLine,
            SiteLine targetLine,
            MatrixOptions options,
            TransferResult plain,
            Optional<TransferResult> cold) {
        RunningNode source = network.node(sourceLine.name());
        RunningNode target = network.node(targetLine.name());
        ExpectedPath.ModuleRule expected = ExpectedPath.expected(sourceLine, targetLine);
        boolean plainWorked = plain.ok() && plain.servedBy().equals(target.nodeId());
        // With WAN latency a relay may answer a first connection sooner than a kernel socket; the kernel
        // attempt it beat then goes on and must be cached by the next connection.
        String firstMayBe = !expected.firstMayBe().isEmpty()
                        || !options.wanLatency().hasDelay()
                        || expected.module().equals("routed")
                ? expected.firstMayBe()
                : "routed";
        TransferResult first = source.connect(target.address(), options.checkBytes(), options.timeout());
        Optional<Long> upgradeMillis = Optional.empty();
        if (first.ok()
                && !first.module().equals(expected.module())
                && first.module().equals(firstMayBe)) {
            upgradeMillis = awaitUpgrade(source, target, expected.module(), options);
        }
        TransferResult cached = medianCached(source, target, options);
        RoundTripResult rtt = source.roundTrips(target.echoAddress(), options.rounds(), options.timeout());
        Optional<RoundTripResult> plainRtt = plainWorked
                ? Optional.of(source.plainRoundTrips(
                        network.plainEcho(targetLine.name()), options.rounds(), options.plainTimeout()))
                : Optional.empty();
        TransferResult throughput = source.connect(target.address(), options.bytes(), options.timeout());
        Optional<TransferResult> plainThroughput = plainWorked
                ? Optional.of(source.plainConnect(
                        network.plainService(targetLine.name()), options.bytes(), options.plainTimeout()))
                : Optional.empty();
        PairResult result = new PairResult(
                sourceLine.name(),
                targetLine.name(),
                target.nodeId(),
                expected.module(),
                expected.when(),
                firstMayBe,
                ExpectedPath.plainSocketWorks(sourceLine, targetLine),
                plain,
                cold,
                first,
                cached,
                rtt,
                plainRtt,
                throughput,
                plainThroughput,
                upgradeMillis);
        System.err.printf(
                "%-9s -> %-9s expected %-7s cold %-7s first %-7s cached %-7s plain %s%s%n",
                result.source(),
                result.target(),
                result.expectedModule(),
                cold.map(ConnectionMatrix::moduleOrFailed).orElse("-"),
                moduleOrFailed(first),
                moduleOrFailed(cached),
                result.plainWorked() ? "works" : "fails",
                result.problems().isEmpty() ? "" : "  PROBLEMS " + result.problems());
        return result;
    }

    /**
     * Waits until the source has cached the expected module for the target (the first connection
     * went another way while the expected path was being set up, e.g. an SSH login, or a relay
     * answered sooner): connections of 4 KiB, every 20 ms, until one is won by it, or
     * {@link #UPGRADE} has passed. Returns the time from the first connection's end to the start of
     * the connection that used it.
     */
    private static Optional<Long> awaitUpgrade(
            RunningNode source, RunningNode target, String module, MatrixOptions options) {
        long start = System.nanoTime();
        long end = start + UPGRADE.toNanos();
        while (System.nanoTime() < end) {
            long tried = System.nanoTime();
            TransferResult r = source.connect(target.address(), 4096, options.timeout());
            if (r.ok() && r.module().equals(module)) {
                long millis = (tried - start) / 1_000_000;
                System.err.printf("  %s cached %d ms after the first connection%n", module, millis);
                return Optional.of(millis);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        System.err.printf(
                "  %s not cached within %d s; the source node's log:%n%s%n",
                module, UPGRADE.toSeconds(), source.recentLog());
        return Optional.empty();
    }

    /** {@code repeats} cached connections: the first failure, or the one with the median setup time. */
    private static TransferResult medianCached(RunningNode source, RunningNode target, MatrixOptions options) {
        List<TransferResult> results = new ArrayList<>();
        for (int i = 0; i < options.repeats(); i++) {
            TransferResult r = source.connect(target.address(), options.checkBytes(), options.timeout());
            if (!r.ok()) {
                return r;
            }
            results.add(r);
        }
        results.sort(java.util.Comparator.comparingLong(TransferResult::setupMicros));
        return results.get(results.size() / 2);
    }

    private static String moduleOrFailed(TransferResult r) {
        return r.ok() ? r.module() : "FAILED";
    }

    private static String key(SiteLine source, SiteLine target) {
        return source.name() + ">" + target.name();
    }
}
