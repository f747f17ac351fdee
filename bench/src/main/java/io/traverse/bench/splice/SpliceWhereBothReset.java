package io.traverse.bench.splice;

import io.traverse.testbed.Host;
import io.traverse.testbed.HubAgent;
import io.traverse.testbed.NodeSettings;
import io.traverse.testbed.RunningNode;
import io.traverse.testbed.Site;
import io.traverse.testbed.Testbed;
import io.traverse.testbed.TransferResult;
import io.traverse.testbed.WanLatency;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Splice between two sides that both answer an unsolicited SYN with a reset, on
 * namespaces with real kernel NAT. Site {@code lab} is behind a port-keeping NAT with no
 * firewall (its own stack resets); site {@code home} is behind a home NAT behind a carrier-grade
 * NAT (ports kept through both, and the carrier NAT's stack resets). The hub is on the internet.
 * The internet has router hops (TTL) and, with {@code --latency wan}, the access latencies of
 * {@code EverydaySites} (lab 3 ms, home 12 ms: a 30 ms round trip between them). Nodes run the
 * splice module alone, so a failure is the module's own. Each connect's data is checked
 * (SHA-256, half-close).
 *
 * <pre>options: --attempts N per direction (100)  --latency none|wan (none)  --hops N routers on the internet (8)
 *          --bytes B per attempt (65536)  --log LEVEL of the nodes' splice logger, with the logs' tails (info: none)</pre>
 */
public final class SpliceWhereBothReset {
    private static final String TOKEN = "bench-splice-reset-token";
    private static final int HUB_PORT = 17000;

    private SpliceWhereBothReset() {}

    public static void main(String[] args) throws Exception {
        int attempts = 100;
        long bytes = 64 << 10;
        boolean wan = false;
        int hops = 8;
        String logLevel = "info";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--attempts" -> attempts = Integer.parseInt(args[++i]);
                case "--bytes" -> bytes = Long.parseLong(args[++i]);
                case "--hops" -> hops = Integer.parseInt(args[++i]);
                case "--log" -> logLevel = args[++i];
                case "--latency" ->
                    wan = switch (args[++i]) {
                        case "wan" -> true;
                        case "none" -> false;
                        default -> throw new IllegalArgumentException("--latency is wan or none");
                    };
                default ->
                    throw new IllegalArgumentException("unknown option " + args[i]
                            + " (options: --attempts N --latency none|wan --hops N --bytes B)");
            }
        }
        System.out.printf(
                Locale.ROOT,
                "# lab: port-keeping NAT, its stack resets; home: home NAT behind a carrier NAT that resets; "
                        + "%d router hops on the internet; latency %s%n",
                hops,
                wan ? "lab 3 ms, home 12 ms, hub 1 ms one way" : "none");
        Result result = measure(attempts, wan, hops, bytes, logLevel);
        print("lab -> home", result.labToHome());
        print("home -> lab", result.homeToLab());
        if (!logLevel.equals("info")) {
            System.out.println("--- lab's log (tail) ---\n" + result.labLog() + "\n--- home's log (tail) ---\n"
                    + result.homeLog());
        }
    }

    /** Both directions' attempts, and the nodes' recent logs. */
    public record Result(Attempts labToHome, Attempts homeToLab, String labLog, String homeLog) {}

    /**
     * Builds the two sites and a hub, starts a splice-only node at each, warms both directions up
     * (two connects each), then makes {@code attempts} connects each way; everything is gone
     * afterwards.
     */
    public static Result measure(int attempts, boolean wan, int hops, long bytes, String logLevel) throws Exception {
        Map<String, Duration> access = new LinkedHashMap<>();
        if (wan) {
            access.put("hub", Duration.ofMillis(1));
            access.put("lab", Duration.ofMillis(3));
            access.put("home", Duration.ofMillis(12));
        }
        WanLatency latency = WanLatency.access(access).withHops(hops);
        try (Testbed testbed = Testbed.create().wanLatency(latency)) {
            Host hubHost = testbed.internet().host("hub");
            Site lab = testbed.site("lab", "10.20.0.0/24");
            Site home = testbed.site("home-cgn", "100.64.0.0/24").siteBehind("home", "192.168.1.0/24");
            Host labHost = lab.host("node");
            Host homeHost = home.host("node");
            String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);
            CompletableFuture<RunningNode> labStart = CompletableFuture.supplyAsync(
                    () -> RunningNode.start(labHost, node(hub, logLevel).bind(labHost.address())));
            CompletableFuture<RunningNode> homeStart = CompletableFuture.supplyAsync(
                    () -> RunningNode.start(homeHost, node(hub, logLevel).bind(homeHost.address())));
            RunningNode l = labStart.join();
            RunningNode h = homeStart.join();
            for (int round = 0; round < 2; round++) { // warm up both ways: JIT, echoes, side channel
                l.connect(h.address(), bytes, Duration.ofSeconds(5));
                h.connect(l.address(), bytes, Duration.ofSeconds(5));
            }
            Attempts there = attempts(l, h, attempts, bytes);
            Attempts back = attempts(h, l, attempts, bytes);
            return new Result(there, back, l.recentLog(), h.recentLog());
        }
    }

    /**
     * Connects one way: how many got through spliced with their data intact, their setup, the
     * round each came through (from the source's debug log; -1 if not found: rounds 4-5 are the
     * primed ones), and why the others failed.
     */
    public record Attempts(int attempts, int ok, double[] setupMillis, List<Integer> rounds, List<String> failures) {
        /** How many came through a primed round. */
        public long primed() {
            return rounds.stream().filter(r -> r >= 4).count();
        }
    }

    /** What the source logs at debug for each splice. */
    private static final Pattern SPLICED_ROUND =
            Pattern.compile("Spliced with node \\S+ from local port (\\d+) to \\S+ \\(round (-?\\d+),");

    private static void print(String what, Attempts a) {
        System.out.printf(
                Locale.ROOT,
                "splice %s: %d/%d succeeded (%.1f %%), %d through a primed round (rounds %s)%n",
                what,
                a.ok,
                a.attempts,
                100.0 * a.ok / a.attempts,
                a.primed(),
                new TreeMap<>(a.rounds.stream().collect(Collectors.groupingBy(r -> r, Collectors.counting()))));
        if (a.setupMillis.length > 0) {
            double[] s = a.setupMillis;
            System.out.printf(
                    Locale.ROOT,
                    "  setup ms: median %.2f, p90 %.2f, max %.2f%n",
                    s[s.length / 2],
                    s[s.length * 9 / 10],
                    s[s.length - 1]);
        }
        if (!a.failures.isEmpty()) {
            System.out.printf(
                    Locale.ROOT, "  failures (first 3): %s%n", a.failures.subList(0, Math.min(3, a.failures.size())));
        }
    }

    private static Attempts attempts(RunningNode from, RunningNode to, int attempts, long bytes) {
        int ok = 0;
        List<Double> setups = new ArrayList<>();
        List<Integer> rounds = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < attempts; i++) {
            TransferResult result = from.connect(to.address(), bytes, Duration.ofSeconds(5));
            if (result.ok() && result.module().equals("splice") && result.bytes() == bytes) {
                ok++;
                setups.add(result.setupMicros() / 1000.0);
                rounds.add(roundOf(from.recentLog()));
            } else {
                failures.add(result.ok() ? "won by " + result.module() : result.error());
            }
        }
        return new Attempts(
                attempts,
                ok,
                setups.stream().mapToDouble(Double::doubleValue).sorted().toArray(),
                rounds,
                failures);
    }

    /** The round of the last splice the source logged; -1 if none is in its log's tail. */
    private static int roundOf(String log) {
        Matcher m = SPLICED_ROUND.matcher(log);
        int round = -1;
        while (m.find()) {
            round = Integer.parseInt(m.group(2));
        }
        return round;
    }

    private static NodeSettings node(String hub, String logLevel) {
        String level = logLevel.equals("trace") ? "trace" : "debug"; // the source's debug line names the round
        return NodeSettings.linkedTo(hub, TOKEN)
                .set("traverse.modules", "splice")
                .jvmOption("-Dorg.slf4j.simpleLogger.log.io.traverse.splice=" + level);
    }
}
