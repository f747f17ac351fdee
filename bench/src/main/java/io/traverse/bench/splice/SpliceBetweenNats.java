package io.traverse.bench.splice;

import io.traverse.testbed.Firewall;
import io.traverse.testbed.Host;
import io.traverse.testbed.HubAgent;
import io.traverse.testbed.NatMode;
import io.traverse.testbed.NodeSettings;
import io.traverse.testbed.RoundTripResult;
import io.traverse.testbed.RunningNode;
import io.traverse.testbed.Site;
import io.traverse.testbed.Testbed;
import io.traverse.testbed.TransferResult;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

/**
 * The targets for the splice module, on namespaces with real kernel NAT: one hub on the
 * internet; site S behind a port-keeping NAT whose firewall rejects (RST), site T behind a
 * port-keeping NAT whose firewall drops, site R behind a port-randomising NAT. Nodes run the
 * splice module alone (so a failure is the module's own, not hidden by another); T also takes
 * relayed connections from the side-channel probe node P (routed only), at site R.
 * <ul>
 * <li>success rate and setup of N connects S to T (each with its data checked, SHA-256 and
 *     half-close), the setup in side-channel round trips: the median round trip of the splice
 *     requests themselves (the source logs it at debug, less the target's processing), beside
 *     the round trip of a connection relayed through the hub from R to T;</li>
 * <li>how long a splice from and to the port-randomising NAT takes to fail;</li>
 * <li>throughput of a spliced connection against a plain TCP connection between the same two
 *     hosts through the same two NATs (T's router forwards a port to T's plain service).</li>
 * </ul>
 *
 * <pre>options: --attempts N (100)  --bytes B per attempt (65536)  --big B for throughput (268435456)  --random N (20)
 *          --log LEVEL of the nodes' splice logger (debug; trace also prints the logs' tails)</pre>
 */
public final class SpliceBetweenNats {
    private static final String TOKEN = "bench-splice-token";
    private static final int HUB_PORT = 17000;
    private static final int PLAIN_SERVICE = 7001;
    private static final int PLAIN_ECHO = 7002;
    /** What the splice module logs at debug per splice: the request's round trip less the target's processing. */
    private static final java.util.regex.Pattern SIDE_CHANNEL_RTT =
            java.util.regex.Pattern.compile("side-channel round trip (\\d+) us");

    private SpliceBetweenNats() {}

    public static void main(String[] args) throws Exception {
        int attempts = 100;
        long bytes = 64 << 10;
        long big = 256L << 20;
        int randomRounds = 20;
        String logLevel = "debug";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--attempts" -> attempts = Integer.parseInt(args[++i]);
                case "--bytes" -> bytes = Long.parseLong(args[++i]);
                case "--big" -> big = Long.parseLong(args[++i]);
                case "--random" -> randomRounds = Integer.parseInt(args[++i]);
                case "--log" -> logLevel = args[++i];
                default ->
                    throw new IllegalArgumentException(
                            "unknown option " + args[i] + " (options: --attempts N --bytes B --big B --random N)");
            }
        }
        String nodeLogLevel = logLevel;
        try (Testbed testbed = Testbed.create()) {
            Host hubHost = testbed.internet().host("hub");
            Site siteS = testbed.site("site-s", "10.0.1.0/24");
            Site siteT = testbed.site("site-t", "10.0.2.0/24");
            Site siteR = testbed.site("site-r", "10.0.3.0/24");
            siteS.router().nat(NatMode.MASQUERADE).firewall(Firewall.rejectInbound());
            siteT.router().nat(NatMode.MASQUERADE).firewall(Firewall.dropInbound());
            siteR.router().nat(NatMode.MASQUERADE_RANDOM).firewall(Firewall.dropInbound());
            Host sHost = siteS.host("s", "10.0.1.2");
            Host tHost = siteT.host("t", "10.0.2.2");
            Host rHost = siteR.host("r", "10.0.3.2");
            Host pHost = siteR.host("p", "10.0.3.3");
            siteT.router().forwardPort(PLAIN_SERVICE, tHost, PLAIN_SERVICE);
            String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);

            CompletableFuture<RunningNode> tStart = CompletableFuture.supplyAsync(() -> RunningNode.start(
                    tHost,
                    node(hub, "splice,routed")
                            .bind(tHost.address())
                            .jvmOption("-Dorg.slf4j.simpleLogger.log.io.traverse.splice=" + nodeLogLevel)
                            .plainPorts(PLAIN_SERVICE, PLAIN_ECHO)));
            CompletableFuture<RunningNode> sStart = CompletableFuture.supplyAsync(() -> RunningNode.start(
                    sHost,
                    node(hub, "splice")
                            .bind(sHost.address())
                            .jvmOption("-Dorg.slf4j.simpleLogger.log.io.traverse.splice=" + nodeLogLevel)));
            CompletableFuture<RunningNode> rStart = CompletableFuture.supplyAsync(
                    () -> RunningNode.start(rHost, node(hub, "splice").bind(rHost.address())));
            CompletableFuture<RunningNode> pStart = CompletableFuture.supplyAsync(
                    () -> RunningNode.start(pHost, node(hub, "routed").bind(pHost.address())));
            RunningNode t = tStart.join();
            RunningNode s = sStart.join();
            RunningNode r = rStart.join();
            RunningNode p = pStart.join();

            // Side-channel round trip: a connection relayed by the hub, site R to site T (the same links a side-channel
            // message crosses).
            RoundTripResult sideChannel = p.roundTrips(t.echoAddress(), 500, Duration.ofSeconds(10));
            if (!sideChannel.ok() || !sideChannel.module().equals("routed")) {
                throw new IllegalStateException("side-channel round trips: " + sideChannel);
            }
            double rttMicros = sideChannel.medianMicros();

            List<TransferResult> warmUp = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                warmUp.add(s.connect(t.address(), bytes, Duration.ofSeconds(5)));
            }
            Attempts there = attempts(s, t, attempts, bytes);
            Attempts back = attempts(t, s, attempts, bytes);
            if (nodeLogLevel.equals("trace")) {
                System.out.println(
                        "--- S's log (tail) ---\n" + s.recentLog() + "\n--- T's log (tail) ---\n" + t.recentLog());
            }

            double[] randomOut = new double[randomRounds];
            double[] randomIn = new double[randomRounds];
            String randomError = "";
            for (int i = 0; i < randomRounds; i++) {
                TransferResult out = r.connect(t.address(), bytes, Duration.ofSeconds(5));
                TransferResult in = s.connect(r.address(), bytes, Duration.ofSeconds(5));
                if (out.ok() || in.ok()) {
                    throw new IllegalStateException(
                            "a splice through the port-randomising NAT got through: " + out + " / " + in);
                }
                randomOut[i] = out.elapsedMillis();
                randomIn[i] = in.elapsedMillis();
                randomError = out.error();
            }
            Arrays.sort(randomOut);
            Arrays.sort(randomIn);

            double[] spliced = new double[3];
            double[] plain = new double[3];
            InetSocketAddress forwarded = new InetSocketAddress(siteT.router().publicAddress(), PLAIN_SERVICE);
            for (int i = 0; i < 3; i++) {
                TransferResult a = s.connect(t.address(), big, Duration.ofSeconds(5));
                TransferResult b = s.plainConnect(forwarded, big, Duration.ofSeconds(5));
                if (!a.ok() || !a.module().equals("splice") || !b.ok()) {
                    throw new IllegalStateException("throughput runs failed: " + a + " / " + b);
                }
                spliced[i] = big / 1e6 / (a.elapsedMillis() / 1e3);
                plain[i] = big / 1e6 / (b.elapsedMillis() / 1e3);
            }
            Arrays.sort(spliced);
            Arrays.sort(plain);

            System.out.printf(
                    Locale.ROOT,
                    "side-channel round trip (relayed R->hub->T, median of %d): %.0f us%n",
                    sideChannel.rounds(),
                    rttMicros);
            System.out.printf(
                    Locale.ROOT,
                    "warm-up (first 3 connects, cold JVMs): setup %s ms%n",
                    warmUp.stream()
                            .map(w -> w.ok()
                                    ? String.format(Locale.ROOT, "%.1f %s", w.setupMillis(), w.module())
                                    : "failed")
                            .toList());
            there.print(
                    "S (port-keeping NAT, firewall rejects) -> T (port-keeping NAT, firewall drops)", bytes, rttMicros);
            back.print(
                    "T (port-keeping NAT, firewall drops) -> S (port-keeping NAT, firewall rejects)", bytes, rttMicros);
            System.out.printf(
                    Locale.ROOT,
                    "port-randomising NAT, splice refused (%d rounds): R to T median %.0f ms max %.0f ms; "
                            + "S to R median %.0f ms max %.0f ms%n  (%s)%n",
                    randomRounds,
                    randomOut[randomRounds / 2],
                    randomOut[randomRounds - 1],
                    randomIn[randomRounds / 2],
                    randomIn[randomRounds - 1],
                    randomError);
            System.out.printf(
                    Locale.ROOT,
                    "throughput %d MiB, S -> T: spliced %s MB/s, plain TCP through the same NATs %s MB/s; "
                            + "ratio of medians %.2f%n",
                    big >> 20,
                    Arrays.toString(round(spliced)),
                    Arrays.toString(round(plain)),
                    spliced[1] / plain[1]);
        }
    }

    /** N connects from one node to another, each with its data checked. */
    private record Attempts(
            int attempts, int ok, double[] setupMicros, double[] sideChannelMicros, List<String> failures) {
        void print(String what, long bytes, double relayedRttMicros) {
            double rttMicros =
                    sideChannelMicros.length > 0 ? sideChannelMicros[sideChannelMicros.length / 2] : relayedRttMicros;
            System.out.printf(
                    Locale.ROOT,
                    "splice %s: %d/%d succeeded (%.1f %%), %d bytes each checked%n",
                    what,
                    ok,
                    attempts,
                    100.0 * ok / attempts,
                    bytes);
            if (setupMicros.length > 0) {
                double median = setupMicros[setupMicros.length / 2];
                System.out.printf(
                        Locale.ROOT,
                        "  setup: median %.0f us = %.2f side-channel round trips (median splice request round trip "
                                + "%.0f us, %d samples), p90 %.0f us, max %.0f us%n",
                        median,
                        median / rttMicros,
                        rttMicros,
                        sideChannelMicros.length,
                        setupMicros[setupMicros.length * 9 / 10],
                        setupMicros[setupMicros.length - 1]);
            }
            if (!failures.isEmpty()) {
                System.out.printf(Locale.ROOT, "  failures: %s%n", failures.subList(0, Math.min(3, failures.size())));
            }
        }
    }

    private static Attempts attempts(RunningNode from, RunningNode to, int attempts, long bytes) {
        int ok = 0;
        List<Double> setups = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        List<Double> sideChannel = new ArrayList<>();
        for (int i = 0; i < attempts; i++) {
            TransferResult result = from.connect(to.address(), bytes, Duration.ofSeconds(5));
            java.util.regex.Matcher m = SIDE_CHANNEL_RTT.matcher(from.recentLog());
            String last = null;
            while (m.find()) {
                last = m.group(1);
            }
            if (last != null) {
                sideChannel.add(Double.parseDouble(last));
            }
            if (result.ok() && result.module().equals("splice") && result.bytes() == bytes) {
                ok++;
                setups.add((double) result.setupMicros());
            } else {
                failures.add(result.ok() ? "won by " + result.module() : result.error());
            }
        }
        return new Attempts(
                attempts,
                ok,
                setups.stream().mapToDouble(Double::doubleValue).sorted().toArray(),
                sideChannel.stream().mapToDouble(Double::doubleValue).sorted().toArray(),
                failures);
    }

    private static NodeSettings node(String hub, String modules) {
        return NodeSettings.linkedTo(hub, TOKEN).set("traverse.modules", modules);
    }

    private static double[] round(double[] values) {
        double[] out = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = Math.round(values[i]);
        }
        return out;
    }
}
