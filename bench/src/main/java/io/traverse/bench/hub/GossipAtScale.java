package io.traverse.bench.hub;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Gossip and routing at 1,000 hubs: real hubs (Netty, loopback TCP) spread
 * over a few child JVMs ({@link HubGroup}), linked as a sparse random graph — each hub dials
 * {@code --degree} distinct hubs started before it, chosen uniformly (so the graph is connected,
 * every hub has at least that many links, about twice that on average, and a diameter of a few
 * hops). No hub advertises an address, so no hub dials what it learns of: the paper's full mesh
 * would be 499,500 links (a million sockets) at 1,000 hubs, which neither this machine nor a real
 * deployment of a thousand sites holds.
 *
 * <p>Measured, after the network has formed and routes are shortest everywhere:
 * <ul>
 *   <li>gossip bytes per hub per minute in steady state ({@code traverse.hub.gossip.bytes}, summed
 *       over all hubs, over {@code --steady-seconds});</li>
 *   <li>{@code --changes} times: a hub dies (closed: its links end with a FIN, as when its process
 *       dies), and a new hub joins (dialling {@code --degree} live hubs); for each, the time from
 *       the change until every hub's routes are the shortest paths over the live links again — taken
 *       from the hubs' own clocks: the last route change of any hub minus the instant of the change
 *       (one monotonic clock for all processes of the machine) — and the gossip bytes received in
 *       the {@code --window-seconds} after it.</li>
 * </ul>
 * Target: every hub converged within 3 s of a change.
 *
 * <pre>
 * options: --hubs N (1000)  --groups N child JVMs (4)  --degree N (3)  --changes N (5)  --steady-seconds S (60)
 *          --window-seconds S (5)  --keepalive MS (2000)  --refresh MS gossip refresh (10000)  --seed N (1)
 *          --give-up S per wait (180)  --heap SIZE per group (1g)  --poll MS (250)  --max-seconds S whole run (1800)
 *          --threads IO,STATE threads each group's hubs share (2,2), or own: every hub its own I/O loop, state loop, worker
 *          --pace-lag MS  while forming, start the next 10 hubs only once every group's shared loops run a task
 *                         queued within MS (0, the default: start each hub as soon as its peers are up)
 * </pre>
 */
public final class GossipAtScale {
    private int hubs = 1000;
    private int groups = 4;
    private int degree = 3;
    private int changes = 5;
    private int steadySeconds = 60;
    private int windowSeconds = 5;
    private long keepaliveMillis = 2000;
    private long refreshMillis = 10_000;
    private long seed = 1;
    private long giveUpSeconds = 180;
    private String heap = "1g";
    private long pollMillis = 250;
    private long maxSeconds = 1800;
    private String threadsPerGroup = "2,2";
    private long paceLagMillis;

    private final List<HubGroupChild> children = new ArrayList<>();
    private int[][] peers;
    private int[] ports;
    private final Set<Integer> running = new LinkedHashSet<>();

    public static void main(String[] args) throws Exception {
        GossipAtScale run = new GossipAtScale();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--hubs" -> run.hubs = Integer.parseInt(args[++i]);
                case "--groups" -> run.groups = Integer.parseInt(args[++i]);
                case "--degree" -> run.degree = Integer.parseInt(args[++i]);
                case "--changes" -> run.changes = Integer.parseInt(args[++i]);
                case "--steady-seconds" -> run.steadySeconds = Integer.parseInt(args[++i]);
                case "--window-seconds" -> run.windowSeconds = Integer.parseInt(args[++i]);
                case "--keepalive" -> run.keepaliveMillis = Long.parseLong(args[++i]);
                case "--refresh" -> run.refreshMillis = Long.parseLong(args[++i]);
                case "--seed" -> run.seed = Long.parseLong(args[++i]);
                case "--give-up" -> run.giveUpSeconds = Long.parseLong(args[++i]);
                case "--heap" -> run.heap = args[++i];
                case "--poll" -> run.pollMillis = Long.parseLong(args[++i]);
                case "--max-seconds" -> run.maxSeconds = Long.parseLong(args[++i]);
                case "--threads" -> run.threadsPerGroup = args[++i];
                case "--pace-lag" -> run.paceLagMillis = Long.parseLong(args[++i]);
                case "--help" -> {
                    System.out.println(
                            "options: --hubs N  --groups N  --degree N  --changes N  --steady-seconds S  --window-seconds S"
                                    + "  --keepalive MS  --refresh MS  --seed N  --give-up S  --heap SIZE  --poll MS  --max-seconds S  --threads IO,STATE|own"
                                    + "  --pace-lag MS");
                    return;
                }
                default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--help lists them)");
            }
        }
        Thread guard = new Thread(run::closeChildren, "close-hub-groups");
        Runtime.getRuntime().addShutdownHook(guard);
        try {
            run.run();
        } finally {
            run.closeChildren();
        }
    }

    private void run() throws Exception {
        Random random = new Random(seed);
        int total = hubs + changes;
        peers = new int[total][];
        for (int i = 0; i < hubs; i++) {
            peers[i] = distinct(random, Math.min(i, degree), i, Set.of());
        }
        // The victims are chosen first, so that the joiners dial hubs that stay.
        int[] victims = distinct(random, changes, hubs, Set.of());
        Set<Integer> victimSet = Arrays.stream(victims).boxed().collect(Collectors.toSet());
        for (int k = 0; k < changes; k++) {
            peers[hubs + k] = distinct(random, degree, hubs, victimSet);
        }
        long edges = Arrays.stream(peers, 0, hubs).mapToLong(p -> p.length).sum();
        System.out.printf(
                Locale.ROOT,
                "# %d hubs in %d JVMs, each dialling %d earlier hubs: %d links (%.1f per hub); %d changes,"
                        + " keepalive %d ms, gossip refresh %d ms, threads per group %s; load %s%n",
                hubs,
                groups,
                degree,
                edges,
                2.0 * edges / hubs,
                changes,
                keepaliveMillis,
                refreshMillis,
                threadsPerGroup,
                load());

        String graph = "GRAPH " + total
                + IntStream.range(0, total)
                        .boxed()
                        .flatMap(i -> Arrays.stream(peers[i]).mapToObj(p -> " " + i + "," + p))
                        .collect(Collectors.joining());
        List<String> properties = new ArrayList<>(List.of(
                "-Dbench.keepaliveMillis=" + keepaliveMillis,
                "-Dbench.refreshMillis=" + refreshMillis,
                "-Dbench.maxSeconds=" + maxSeconds));
        if (threadsPerGroup.equals("own")) {
            properties.add("-Dbench.sharedThreads=false");
        } else {
            String[] t = threadsPerGroup.split(",");
            properties.addAll(List.of("-Dbench.ioThreads=" + t[0], "-Dbench.stateThreads=" + t[1]));
        }
        for (int g = 0; g < groups; g++) {
            children.add(new HubGroupChild(g, heap, properties));
        }
        for (HubGroupChild child : children) {
            expect(child.call(graph), "OK");
        }
        ports = new int[total];
        long formStart = System.nanoTime();
        startAllBaseHubs();
        long allStarted = System.nanoTime();
        Check formed = awaitConverged(formStart, "the network forming");
        System.out.printf(
                Locale.ROOT,
                "formed: %d hubs started in %.1f s; routes shortest everywhere %.1f s after the first start"
                        + " (%d descriptions, %.1f MiB of gossip received in all); load %s%n",
                hubs,
                (allStarted - formStart) / 1e9,
                (formed.polledNanos - formStart) / 1e9,
                formed.descriptions,
                formed.gossipBytes / 1048576.0,
                load());

        // Steady state: after the forming burst has passed (one refresh interval and a little), over a fixed window.
        Thread.sleep(refreshMillis + 2000);
        Check before = check();
        Thread.sleep(steadySeconds * 1000L);
        Check after = check();
        double steadyPerHubMinute =
                perHubPerMinute(after.gossipBytes - before.gossipBytes, after.polledNanos - before.polledNanos);
        double steadyDescriptions = (after.descriptions - before.descriptions)
                * 60e9
                / (after.polledNanos - before.polledNanos)
                / running.size();
        System.out.printf(
                Locale.ROOT,
                "steady state over %.1f s: %.0f gossip bytes per hub per minute (%.1f KiB), %.0f descriptions"
                        + " received per hub per minute; routes right at %d of %d hubs; last link change of any hub %.1f s before"
                        + " the window's end (%s); load %s%n",
                (after.polledNanos - before.polledNanos) / 1e9,
                steadyPerHubMinute,
                steadyPerHubMinute / 1024,
                steadyDescriptions,
                after.right,
                running.size(),
                (after.polledNanos - after.lastLinkChange) / 1e9,
                after.lastLinkChange > before.polledNanos
                        ? "links changed in the window"
                        : "no link changed in the window",
                load());

        List<Double> deaths = new ArrayList<>();
        List<Double> joins = new ArrayList<>();
        for (int k = 0; k < changes; k++) {
            int victim = victims[k];
            broadcast("LIVE 0 " + victim);
            String[] stopped = owner(victim).call("STOP " + victim).split(" ");
            running.remove(victim);
            deaths.add(measureChange(
                    "hub " + victim + " dies (" + peersOf(victim) + " links)",
                    Long.parseLong(stopped[2]),
                    steadyPerHubMinute));
            Thread.sleep(1000);
            int joiner = hubs + k;
            broadcast("LIVE 1 " + joiner);
            long t0 = start(joiner);
            joins.add(measureChange(
                    "hub " + joiner + " joins, dialling " + Arrays.toString(peers[joiner]), t0, steadyPerHubMinute));
            Thread.sleep(1000);
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "Target: %d hubs converge within 3 s of a change%n", hubs);
        System.out.printf(
                Locale.ROOT,
                "  a hub dies:  p50 %.0f ms, max %.0f ms over %d changes -> %s%n",
                median(deaths),
                max(deaths),
                deaths.size(),
                max(deaths) <= 3000 ? "MET" : "NOT MET");
        System.out.printf(
                Locale.ROOT,
                "  a hub joins: p50 %.0f ms, max %.0f ms over %d changes -> %s%n",
                median(joins),
                max(joins),
                joins.size(),
                max(joins) <= 3000 ? "MET" : "NOT MET");
        System.out.printf(Locale.ROOT, "  steady gossip: %.1f KiB per hub per minute%n", steadyPerHubMinute / 1024);
    }

    /** Waits until routes are right everywhere again; prints and returns the convergence time in ms. */
    private double measureChange(String what, long changeNanos, double steadyPerHubMinute) throws Exception {
        Check done = awaitConverged(changeNanos, what);
        double millis = (done.lastRouteChange - changeNanos) / 1e6;
        long windowEnd = changeNanos + windowSeconds * 1_000_000_000L;
        Check baseline = lastBeforeChange;
        long wait = (windowEnd - System.nanoTime()) / 1_000_000;
        if (wait > 0) {
            Thread.sleep(wait);
        }
        Check window = check();
        double windowPerHubMinute =
                perHubPerMinute(window.gossipBytes - baseline.gossipBytes, window.polledNanos - baseline.polledNanos);
        // How the change spread: when the hubs whose routes it changed had their last change (the slowest is the
        // figure).
        long[] after = Arrays.stream(done.routeChanges)
                .filter(t -> t - changeNanos > 0)
                .map(t -> t - changeNanos)
                .sorted()
                .toArray();
        String spread = after.length == 0
                ? "no hub's routes changed"
                : String.format(
                        Locale.ROOT,
                        "%d hubs' routes changed: half by %.0f ms, 90 %% by %.0f ms, 99 %% by %.0f ms",
                        after.length,
                        after[(after.length - 1) / 2] / 1e6,
                        after[(int) ((after.length - 1) * 0.9)] / 1e6,
                        after[(int) ((after.length - 1) * 0.99)] / 1e6);
        System.out.printf(
                Locale.ROOT,
                "%s: routes shortest everywhere %.0f ms after it (seen by a poll %.0f ms after it; %s);"
                        + " gossip in the %.1f s around it: %.0f bytes per hub per minute (%.1fx steady); load %s%n",
                what,
                millis,
                (done.polledNanos - changeNanos) / 1e6,
                spread,
                (window.polledNanos - baseline.polledNanos) / 1e9,
                windowPerHubMinute,
                windowPerHubMinute / steadyPerHubMinute,
                load());
        return millis;
    }

    private double perHubPerMinute(long bytes, long nanos) {
        return bytes * 60e9 / nanos / running.size();
    }

    private Check lastBeforeChange;

    /** Polls until every running hub's routes are shortest; the last poll before that is kept as {@link #lastBeforeChange}. */
    private Check awaitConverged(long sinceNanos, String what) throws Exception {
        lastBeforeChange = check();
        System.out.printf(
                Locale.ROOT,
                "  %s: first poll, routes right at %d of %d hubs (%d too busy to answer); load %s%n",
                what,
                lastBeforeChange.right,
                running.size(),
                lastBeforeChange.busy,
                load());
        long giveUp = System.nanoTime() + giveUpSeconds * 1_000_000_000L;
        Check c = lastBeforeChange;
        long lastProgress = System.nanoTime();
        boolean diagnosed = false;
        while (c.right < running.size()) {
            if (!diagnosed && System.nanoTime() - sinceNanos > 3_000_000_000L && !what.contains("forming")) {
                // Past the target: which hubs are wrong, and which descriptions they lack (if any).
                diagnosed = true;
                for (HubGroupChild child : children) {
                    child.send("DIAG");
                }
                for (HubGroupChild child : children) {
                    System.out.printf(Locale.ROOT, "  %s: 3 s on, %s%n", what, child.answer());
                }
            }
            if (System.nanoTime() > giveUp) {
                throw new IllegalStateException(what + ": routes right at only " + c.right + " of " + running.size()
                        + " hubs after " + giveUpSeconds + " s (" + c.busy + " too busy to answer)");
            }
            if (System.nanoTime() - lastProgress > 5_000_000_000L) {
                lastProgress = System.nanoTime();
                System.out.printf(
                        Locale.ROOT,
                        "  %s: %.0f s, routes right at %d of %d hubs (%d too busy to answer); load %s%n",
                        what,
                        (System.nanoTime() - sinceNanos) / 1e9,
                        c.right,
                        running.size(),
                        c.busy,
                        load());
            }
            Thread.sleep(pollMillis);
            c = check();
        }
        return c;
    }

    private record Check(
            int right,
            long lastRouteChange,
            long lastLinkChange,
            long gossipBytes,
            long descriptions,
            int busy,
            long polledNanos,
            long[] routeChanges) {}

    private Check check() throws IOException {
        for (HubGroupChild child : children) {
            child.send("CHECK");
        }
        int right = 0;
        int busy = 0;
        long lastRoute = Long.MIN_VALUE;
        long lastLink = Long.MIN_VALUE;
        long bytes = 0;
        long descriptions = 0;
        List<Long> routeChanges = new ArrayList<>();
        for (HubGroupChild child : children) {
            String[] f = child.answer().split(" ");
            expect(f[0], "CHECKED");
            right += Integer.parseInt(f[1]);
            lastRoute = Math.max(lastRoute, Long.parseLong(f[2]));
            lastLink = Math.max(lastLink, Long.parseLong(f[3]));
            bytes += Long.parseLong(f[4]);
            descriptions += Long.parseLong(f[5]);
            busy += Integer.parseInt(f[6]);
            if (!f[7].equals("-")) {
                for (String t : f[7].split(",")) {
                    routeChanges.add(Long.parseLong(t));
                }
            }
        }
        return new Check(
                right,
                lastRoute,
                lastLink,
                bytes,
                descriptions,
                busy,
                System.nanoTime(),
                routeChanges.stream().mapToLong(Long::longValue).toArray());
    }

    /**
     * Starts hubs 0 to {@code hubs - 1}, each as soon as the ports of the hubs it dials are known:
     * the groups start hubs at the same time, each group one after the other.
     */
    private void startAllBaseHubs() throws IOException, InterruptedException {
        broadcast("LIVE 1" + IntStream.range(0, hubs).mapToObj(i -> " " + i).collect(Collectors.joining()));
        List<java.util.ArrayDeque<Integer>> pending = new ArrayList<>();
        children.forEach(c -> pending.add(new java.util.ArrayDeque<>()));
        long begun = System.nanoTime();
        long lastProgress = begun;
        for (int i = 0; i < hubs; i++) {
            for (int p : peers[i]) {
                while (ports[p] == 0) {
                    readStarted(p % children.size(), pending);
                }
            }
            if (System.nanoTime() - lastProgress > 10_000_000_000L) {
                lastProgress = System.nanoTime();
                System.out.printf(
                        Locale.ROOT,
                        "  %.0f s: %d of %d hubs started; load %s%n",
                        (lastProgress - begun) / 1e9,
                        running.size(),
                        hubs,
                        load());
            }
            if (paceLagMillis > 0 && i % PACED_BATCH == 0 && i > 0) {
                awaitLoopsCaughtUp(pending);
            }
            owner(i).send(startCommand(i));
            pending.get(i % children.size()).add(i);
        }
        for (int g = 0; g < children.size(); g++) {
            while (!pending.get(g).isEmpty()) {
                readStarted(g, pending);
            }
        }
    }

    private static final int PACED_BATCH = 10;

    /** Waits (answers to the starts sent first) until every group's busiest loop runs a new task within --pace-lag. */
    private void awaitLoopsCaughtUp(List<java.util.ArrayDeque<Integer>> pending)
            throws IOException, InterruptedException {
        for (int g = 0; g < children.size(); g++) {
            while (!pending.get(g).isEmpty()) {
                readStarted(g, pending);
            }
        }
        while (true) {
            long worst = 0;
            for (HubGroupChild child : children) {
                String[] f = child.call("LAG").split(" ");
                expect(f[0], "LAG");
                worst = Math.max(worst, Long.parseLong(f[1]));
            }
            if (worst <= paceLagMillis * 1000) {
                return;
            }
            Thread.sleep(50);
        }
    }

    private void readStarted(int group, List<java.util.ArrayDeque<Integer>> pending) throws IOException {
        String[] f = children.get(group).answer().split(" ");
        expect(f[0], "STARTED");
        int index = pending.get(group).remove();
        ports[index] = Integer.parseInt(f[2]);
        running.add(index);
    }

    private String startCommand(int i) {
        StringBuilder command = new StringBuilder("START ").append(i);
        for (int p : peers[i]) {
            command.append(' ').append(ports[p]);
        }
        return command.toString();
    }

    /** Starts hub i in its group, dialling its peers; returns the instant before its start. */
    private long start(int i) throws IOException {
        String[] f = owner(i).call(startCommand(i)).split(" ");
        expect(f[0], "STARTED");
        ports[i] = Integer.parseInt(f[2]);
        running.add(i);
        return Long.parseLong(f[3]);
    }

    private void broadcast(String command) throws IOException {
        for (HubGroupChild child : children) {
            child.send(command);
        }
        for (HubGroupChild child : children) {
            expect(child.answer(), "OK");
        }
    }

    private HubGroupChild owner(int hub) {
        return children.get(hub % children.size());
    }

    private int peersOf(int hub) {
        int n = peers[hub].length;
        for (int i = 0; i < peers.length; i++) {
            for (int p : peers[i]) {
                if (p == hub && running.contains(i)) {
                    n++;
                }
            }
        }
        return n;
    }

    /** {@code count} distinct numbers below {@code bound}, none in {@code excluded}. */
    private static int[] distinct(Random random, int count, int bound, Set<Integer> excluded) {
        Set<Integer> chosen = new HashSet<>();
        List<Integer> order = new ArrayList<>();
        while (order.size() < count) {
            int candidate = random.nextInt(bound);
            if (!excluded.contains(candidate) && chosen.add(candidate)) {
                order.add(candidate);
            }
        }
        return order.stream().mapToInt(Integer::intValue).toArray();
    }

    private static void expect(String got, String wanted) {
        if (!got.startsWith(wanted)) {
            throw new IllegalStateException("hub group answered '" + got + "', expected " + wanted);
        }
    }

    private static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "?";
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    private static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private synchronized void closeChildren() {
        children.forEach(HubGroupChild::quit);
        for (HubGroupChild child : children) {
            child.close();
        }
        children.clear();
    }
}
