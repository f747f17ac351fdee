package io.traverse.bench.hub;

import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import io.traverse.hub.HubRouting;
import io.traverse.hub.HubStatus;
import io.traverse.hub.SharedHubThreads;
import io.traverse.identity.NodeId;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Timer;
import java.util.TimerTask;

/**
 * A child JVM holding some of the hubs of a {@link GossipAtScale} network, driven line by line
 * through stdin by {@link HubGroupChild}; each command gets exactly one line back on stdout.
 * Every hub advertises no address, so its links are exactly the configured ones (hubs do not dial
 * what they learn of): the network keeps the shape the coordinator chose.
 *
 * <pre>
 * GRAPH n a,b a,b ...          the whole network's links (hub indexes), for checking routes  -> OK
 * LIVE 0|1 i ...                whether hubs i ... run, anywhere (links count only while both ends do) -> OK
 * START i peerPort ...          starts hub i here, dialling those ports                     -> STARTED i port nanoTimeBeforeStart
 * STOP i                        closes hub i (its links end with a FIN, as when its process dies) -> STOPPED i nanoTimeBeforeClose
 * LAG                           -> LAG micros: how long a task waits for the group's busiest shared loop (0 with own threads)
 * CHECK                         -> CHECKED right hubs lastRouteChangeNanos lastLinkChangeNanos gossipBytes descriptions busy
 *                                  routeChangeNanos,... (each hub's last route change)
 * DIAG                          -> DIAG and, for up to 3 hubs here whose routes are wrong, what is wrong and which
 *                                  descriptions of hubs in this group it holds at an older state than theirs
 * QUIT                          ends the JVM
 * </pre>
 *
 * A hub is right when its routes are exactly the shortest paths over the live links: a route to
 * every hub it can reach, with the hop count of a shortest path, and no route to any other.
 * {@code System.nanoTime()} is CLOCK_MONOTONIC on Linux, one clock for every process of the machine,
 * so the coordinator compares the times of hubs in different JVMs. The JVM ends itself at end of
 * input (the coordinator died) and after {@code -Dbench.maxSeconds} (default 1800) whatever happens.
 * The hubs share {@code -Dbench.ioThreads} (2) I/O loops and {@code -Dbench.stateThreads} (2) state
 * loops ({@link SharedHubThreads}) unless {@code -Dbench.sharedThreads=false} gives each its own.
 */
public final class HubGroup {
    static final String TOKEN = "bench-gossip-secret";

    private final Map<Integer, Hub> hubs = new HashMap<>();
    /** Wait for the hubs' answers to CHECK side by side (each waits on a hub's state loop). */
    private final java.util.concurrent.ExecutorService askers =
            java.util.concurrent.Executors.newFixedThreadPool(128, r -> {
                Thread t = new Thread(r, "hub-group-check");
                t.setDaemon(true);
                return t;
            });
    /** Null: every hub has threads of its own (-Dbench.sharedThreads=false). */
    private final SharedHubThreads threads = Boolean.parseBoolean(System.getProperty("bench.sharedThreads", "true"))
            ? new SharedHubThreads(
                    Integer.getInteger("bench.ioThreads", 2), Integer.getInteger("bench.stateThreads", 2), 4096)
            : null;

    private final Duration keepalive = Duration.ofMillis(Long.getLong("bench.keepaliveMillis", 2000));
    private final Duration refresh = Duration.ofMillis(Long.getLong("bench.refreshMillis", 10_000));
    private int[][] neighbours = new int[0][];
    private boolean[] live = new boolean[0];
    private NodeId[] ids = new NodeId[0];

    private HubGroup() {}

    private final java.nio.file.Path keys = tempKeys();

    private static java.nio.file.Path tempKeys() {
        try {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bench-hub-keys");
            dir.toFile().deleteOnExit();
            return dir;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private java.nio.file.Path keyFile(int index) {
        return keys.resolve(hubName(index) + ".key");
    }

    static String hubName(int index) {
        return "gossip-hub-" + index;
    }

    public static void main(String[] args) throws Exception {
        long maxSeconds = Long.getLong("bench.maxSeconds", 1800);
        Timer deadline = new Timer("hub-group-deadline", true);
        deadline.schedule(
                new TimerTask() {
                    @Override
                    public void run() {
                        System.err.println("hub group: " + maxSeconds + " s are up, exiting");
                        Runtime.getRuntime().halt(3);
                    }
                },
                maxSeconds * 1000);
        HubGroup group = new HubGroup();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            for (String line = in.readLine(); line != null && !line.equals("QUIT"); line = in.readLine()) {
                out.println(group.command(line.trim().split(" ")));
                out.flush();
            }
        } finally {
            // Not closed one by one (hundreds of graceful closes take a while): the kernel closes the sockets.
            Runtime.getRuntime().halt(0);
        }
    }

    private String command(String[] words) throws Exception {
        switch (words[0]) {
            case "GRAPH" -> {
                int n = Integer.parseInt(words[1]);
                List<List<Integer>> lists = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    lists.add(new ArrayList<>());
                }
                for (int w = 2; w < words.length; w++) {
                    String[] ab = words[w].split(",");
                    int a = Integer.parseInt(ab[0]);
                    int b = Integer.parseInt(ab[1]);
                    lists.get(a).add(b);
                    lists.get(b).add(a);
                }
                neighbours = new int[n][];
                ids = new NodeId[n];
                for (int i = 0; i < n; i++) {
                    neighbours[i] =
                            lists.get(i).stream().mapToInt(Integer::intValue).toArray();
                    // Kept in files so that a hub restarted under its index keeps its id, as the graph expects.
                    ids[i] = io.traverse.security.KeyFile.loadOrCreate(keyFile(i), "hub")
                            .key()
                            .id();
                }
                live = new boolean[n];
                return "OK";
            }
            case "LIVE" -> {
                for (int w = 2; w < words.length; w++) {
                    live[Integer.parseInt(words[w])] = words[1].equals("1");
                }
                return "OK";
            }
            case "START" -> {
                int index = Integer.parseInt(words[1]);
                HubConfig.Builder config = HubConfig.builder()
                        .bindAddress("127.0.0.1")
                        .port(0)
                        .httpPort(-1)
                        .name(hubName(index))
                        .keyFile(keyFile(index))
                        .token(TOKEN)
                        .keepaliveInterval(keepalive)
                        .gossipRefreshInterval(refresh)
                        .hubExpiry(
                                refresh.multipliedBy(3).compareTo(Duration.ofSeconds(30)) > 0
                                        ? refresh.multipliedBy(3)
                                        : Duration.ofSeconds(30))
                        .advertisedAddresses(List.of())
                        .ioThreads(1);
                for (int w = 2; w < words.length; w++) {
                    config.peer("127.0.0.1:" + words[w]);
                }
                long before = System.nanoTime();
                Hub hub = threads == null ? Hub.start(config.build()) : Hub.start(config.build(), threads);
                hubs.put(index, hub);
                return "STARTED " + index + " " + hub.linkAddress().getPort() + " " + before;
            }
            case "STOP" -> {
                int index = Integer.parseInt(words[1]);
                long before = System.nanoTime();
                hubs.remove(index).close();
                return "STOPPED " + index + " " + before;
            }
            case "LAG" -> {
                return "LAG " + (threads == null ? 0 : threads.queueDelay().toNanos() / 1000);
            }
            case "CHECK" -> {
                return check();
            }
            case "DIAG" -> {
                return diagnose();
            }
            default -> throw new IllegalArgumentException("unknown command " + Arrays.toString(words));
        }
    }

    private String check() {
        int right = 0;
        int busy = 0;
        long lastRouteChange = Long.MIN_VALUE;
        long lastLinkChange = Long.MIN_VALUE;
        long gossipBytes = 0;
        long descriptions = 0;
        Map<NodeId, Integer> indexOf = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            indexOf.put(ids[i], i);
        }
        // Asked all at once: a hub too busy to answer within the 5 s of Hub.routing() must not hold up the others.
        Map<Integer, java.util.concurrent.Future<HubRouting>> asked = new HashMap<>();
        List<Long> routeChanges = new ArrayList<>();
        for (Map.Entry<Integer, Hub> e : hubs.entrySet()) {
            Hub hub = e.getValue();
            gossipBytes += hub.metrics().gossipBytesReceived();
            descriptions += (long) hub.metrics()
                    .registry()
                    .get("traverse.hub.gossip.received")
                    .counter()
                    .count();
            asked.put(e.getKey(), askers.submit(hub::routing));
        }
        for (Map.Entry<Integer, java.util.concurrent.Future<HubRouting>> e : asked.entrySet()) {
            HubRouting routing;
            try {
                routing = e.getValue().get();
            } catch (java.util.concurrent.ExecutionException tooBusy) {
                busy++;
                continue;
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(interrupted);
            }
            lastRouteChange = Math.max(lastRouteChange, routing.routesChangedNanos());
            routeChanges.add(routing.routesChangedNanos());
            lastLinkChange = Math.max(lastLinkChange, routing.linksChangedNanos());
            if (routesAreShortest(e.getKey(), routing.routes(), indexOf)) {
                right++;
            }
        }
        return "CHECKED " + right + " " + lastRouteChange + " " + lastLinkChange + " " + gossipBytes + " "
                + descriptions + " " + busy + " "
                + (routeChanges.isEmpty()
                        ? "-"
                        : routeChanges.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(",")));
    }

    /** Why routes are wrong at a few hubs here: for finding descriptions that gossip failed to deliver. */
    private String diagnose() {
        Map<NodeId, Integer> indexOf = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            indexOf.put(ids[i], i);
        }
        Map<Integer, Long> currentStates = new HashMap<>();
        Map<Integer, HubStatus> statuses = new HashMap<>();
        for (Map.Entry<Integer, Hub> e : hubs.entrySet()) {
            try {
                HubStatus status = e.getValue().status();
                statuses.put(e.getKey(), status);
                currentStates.put(e.getKey(), status.stateNumber());
            } catch (IllegalStateException busy) {
                // left out
            }
        }
        StringBuilder out = new StringBuilder("DIAG");
        int shown = 0;
        for (Map.Entry<Integer, HubStatus> e : statuses.entrySet()) {
            int from = e.getKey();
            HubStatus status = e.getValue();
            if (routesAreShortest(from, status.routes(), indexOf) || shown++ >= 3) {
                continue;
            }
            int[] hops = shortestHops(from);
            StringBuilder wrong = new StringBuilder();
            for (Map.Entry<NodeId, HubStatus.RouteStatus> route :
                    status.routes().entrySet()) {
                Integer to = indexOf.get(route.getKey());
                if (to == null || hops[to] != route.getValue().hops()) {
                    wrong.append(' ')
                            .append(to)
                            .append(':')
                            .append(route.getValue().hops())
                            .append("/")
                            .append(to == null ? -1 : hops[to]);
                }
            }
            for (int to = 0; to < hops.length; to++) {
                if (hops[to] > 0 && !status.routes().containsKey(ids[to])) {
                    wrong.append(" missing:").append(to);
                }
            }
            StringBuilder stale = new StringBuilder();
            status.knownHubs().forEach((id, known) -> {
                Integer index = indexOf.get(id);
                Long current = index == null ? null : currentStates.get(index);
                if (current != null && known.stateNumber() != current) {
                    stale.append(' ')
                            .append(index)
                            .append('@')
                            .append(current - known.stateNumber())
                            .append("behind");
                }
            });
            out.append(" | hub ")
                    .append(from)
                    .append(" routes (to:hops/expected)")
                    .append(wrong)
                    .append("; stale here:")
                    .append(stale);
        }
        return out.toString();
    }

    private int[] shortestHops(int from) {
        int[] hops = new int[neighbours.length];
        Arrays.fill(hops, -1);
        hops[from] = 0;
        Deque<Integer> queue = new ArrayDeque<>(List.of(from));
        while (!queue.isEmpty()) {
            int u = queue.poll();
            for (int v : neighbours[u]) {
                if (live[v] && hops[v] < 0) {
                    hops[v] = hops[u] + 1;
                    queue.add(v);
                }
            }
        }
        return hops;
    }

    private boolean routesAreShortest(
            int from, Map<NodeId, HubStatus.RouteStatus> routes, Map<NodeId, Integer> indexOf) {
        int[] hops = new int[neighbours.length];
        Arrays.fill(hops, -1);
        hops[from] = 0;
        Deque<Integer> queue = new ArrayDeque<>(List.of(from));
        int reachable = 0;
        while (!queue.isEmpty()) {
            int u = queue.poll();
            for (int v : neighbours[u]) {
                if (live[v] && hops[v] < 0) {
                    hops[v] = hops[u] + 1;
                    reachable++;
                    queue.add(v);
                }
            }
        }
        if (routes.size() != reachable) {
            return false;
        }
        for (Map.Entry<NodeId, HubStatus.RouteStatus> route : routes.entrySet()) {
            Integer to = indexOf.get(route.getKey());
            if (to == null || hops[to] != route.getValue().hops()) {
                return false;
            }
        }
        return true;
    }
}
