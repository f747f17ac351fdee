package io.traverse.bench.load;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The processes of a load run on loopback: the hub (or {@code --hubs} in a line, the clients
 * linked to the first and the server to the last), the server JVM, the client JVMs (and, for a
 * churn burst, one more client JVM to be SIGKILLed), with what the scenarios read from them
 * together: connections held, bytes written, latencies, failures, the hub's memory and CPU. Prints
 * a progress line when asked. Closing it kills every child; so does this JVM's exit.
 */
final class LoadBed implements AutoCloseable {
    private final LoadOptions options;
    private final PrintStream log;
    private final long startNanos = System.nanoTime();
    private final long deadlineNanos;
    private final List<AutoCloseable> started = new ArrayList<>();
    private final List<HubProcess> hubs = new ArrayList<>();
    /** The first hub, the clients' (with one hub, the server's too): the one measured. */
    private HubProcess hub;

    private StreamServerProcess server;
    private final List<LoadClientProcess> clients = new ArrayList<>();
    private LoadClientProcess burst;
    private long lastSent;
    private long lastNanos = System.nanoTime();
    private final List<LatencyHistogram> lastHistograms = new ArrayList<>();
    private double worstWindowFairness = 1;
    private int mostHeld;
    private final Map<String, Double> cpuAtStart = new LinkedHashMap<>();

    LoadBed(LoadOptions options, PrintStream log) {
        this.options = options;
        this.log = log;
        this.deadlineNanos = startNanos + TimeUnit.SECONDS.toNanos(options.deadlineSeconds());
    }

    /** Starts the hub, the server and the client JVMs (and the burst JVM when {@code withBurst}); every node is linked on return. */
    void start(boolean withBurst) throws IOException, InterruptedException {
        for (int i = 0; i < options.hubs(); i++) {
            hubs.add(track(new HubProcess(
                    i,
                    options.hubHeap(),
                    options.hubIoThreads(),
                    options.hubs() > 1,
                    i == 0 ? null : hubs.get(i - 1))));
            log.println("# hub " + i + " pid " + hubs.get(i).pid() + " at "
                    + hubs.get(i).address() + (i == 0 ? "" : ", dials hub " + (i - 1)));
        }
        hub = hubs.get(0);
        server = track(new StreamServerProcess(
                hubs.get(hubs.size() - 1).address(),
                options.serverNodes(),
                options.readTimeoutMillis(),
                options.clientHeap()));
        log.println("# server pid " + server.pid() + ", " + options.serverNodes() + " node(s)");
        List<CompletableFuture<LoadClientProcess>> starting = new ArrayList<>();
        int count = options.clients() + (withBurst ? 1 : 0);
        for (int g = 0; g < count; g++) {
            int group = g;
            int nodes = group < options.clients() ? options.nodesPerClient() : options.burstNodes();
            starting.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return new LoadClientProcess(
                            group,
                            hub.address(),
                            nodes,
                            options,
                            options.transport().equals("plain") ? List.of(server.plainAddress()) : server.addresses());
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException("client JVM " + group + " did not start: " + e.getMessage(), e);
                }
            }));
        }
        for (CompletableFuture<LoadClientProcess> f : starting) {
            LoadClientProcess c = track(f.join());
            if (c.group() < options.clients()) {
                clients.add(c);
            } else {
                burst = c;
            }
        }
        for (var e : pids().entrySet()) {
            cpuAtStart.put(e.getKey(), ProcessSample.of(e.getValue()).cpuSeconds());
        }
        log.println("# " + clients.size() + " client JVM(s) x " + options.nodesPerClient() + " nodes"
                + (burst == null ? "" : ", burst JVM of " + options.burstNodes() + " nodes") + " linked after "
                + fmt(seconds()) + " s");
    }

    /** Closes {@code resource} when the bed closes (before the processes), whatever happens meanwhile. */
    <T extends AutoCloseable> T closeLater(T resource) {
        return track(resource);
    }

    private <T extends AutoCloseable> T track(T child) {
        started.add(child);
        return child;
    }

    private Map<String, Long> pids() {
        Map<String, Long> pids = new LinkedHashMap<>();
        for (int i = 0; i < hubs.size(); i++) {
            pids.put(hubs.size() == 1 ? "hub" : "hub-" + i, hubs.get(i).pid());
        }
        pids.put("server", server.pid());
        for (LoadClientProcess c : allClients()) {
            pids.put(c == burst ? "burst" : "client-" + c.group(), c.pid());
        }
        return pids;
    }

    /**
     * CPU seconds each process used since every node was linked ({@code hub 12.3, server 40.1, ...}),
     * and this machine's load: whether the hub or the harness was short of CPU.
     */
    String cpuSplit() {
        StringBuilder b = new StringBuilder();
        for (var e : pids().entrySet()) {
            String used;
            try {
                used = fmt(ProcessSample.of(e.getValue()).cpuSeconds() - cpuAtStart.getOrDefault(e.getKey(), 0.0));
            } catch (IOException gone) {
                used = "gone";
            }
            b.append(b.length() == 0 ? "" : ", ").append(e.getKey()).append(' ').append(used);
        }
        return b.append(" (CPU s; ")
                .append(fmt(seconds()))
                .append(" s since start)")
                .toString();
    }

    /**
     * SIGKILLs the (only) hub and starts a new one on the same port, where the nodes look for it;
     * returns once it listens (a bind that fails while the old port is released is tried again).
     */
    void restartHub() throws IOException, InterruptedException {
        if (hubs.size() != 1) {
            throw new IllegalStateException("a hub restart needs --hubs 1");
        }
        int port = hub.port();
        hub.kill();
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                hub = track(new HubProcess(0, options.hubHeap(), options.hubIoThreads(), false, null, port));
                break;
            } catch (IOException e) {
                if (System.nanoTime() > giveUp) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
        hubs.set(0, hub);
        cpuAtStart.put("hub", 0.0);
    }

    HubProcess hub() {
        return hub;
    }

    StreamServerProcess server() {
        return server;
    }

    List<LoadClientProcess> clients() {
        return clients;
    }

    LoadClientProcess burst() {
        return burst;
    }

    double seconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /** @throws IllegalStateException past the run's deadline, or when a child that should live has died */
    void check() {
        if (System.nanoTime() > deadlineNanos) {
            throw new IllegalStateException("the run's deadline of " + options.deadlineSeconds() + " s has passed");
        }
        if (!server.alive()) {
            throw new IllegalStateException("the server JVM died");
        }
        for (LoadClientProcess c : clients) {
            if (!c.alive()) {
                throw new IllegalStateException("client JVM " + c.group() + " died");
            }
        }
    }

    /** Sends {@code commandFormat} (with {@code %d} for each client's share of {@code n}) to the surviving clients. */
    void share(String commandFormat, int n) {
        for (int i = 0; i < clients.size(); i++) {
            int part = n / clients.size() + (i < n % clients.size() ? 1 : 0);
            if (part > 0) {
                clients.get(i).send(String.format(Locale.ROOT, commandFormat, part));
            }
        }
    }

    /** Connections held by the surviving clients (and the burst JVM while it lives). */
    int held() {
        int held = clients.stream().mapToInt(c -> (int) c.stat().get("held")).sum();
        held = burst != null && burst.alive() ? held + (int) burst.stat().get("held") : held;
        mostHeld = Math.max(mostHeld, held);
        return held;
    }

    /** The most connections {@link #held} has seen at once (progress lines look every few seconds). */
    int mostHeld() {
        return mostHeld;
    }

    /** Chunk bytes written so far by every client (the burst JVM's until it died). */
    long sent() {
        long sent = clients.stream().mapToLong(c -> c.stat().get("sent")).sum();
        return burst == null ? sent : sent + burst.stat().get("sent");
    }

    long survivorCount(String stat) {
        return clients.stream().mapToLong(c -> c.stat().get(stat)).sum();
    }

    /** Resets of the surviving clients' connections, seen at either end. */
    long survivorResets() {
        String burstSuffix = "@" + options.clients();
        return survivorFailures("reset")
                + server.stat().counts("failures").entrySet().stream()
                        .filter(e ->
                                e.getKey().startsWith("reset@") && !e.getKey().endsWith(burstSuffix))
                        .mapToLong(Map.Entry::getValue)
                        .sum();
    }

    /** FAIL lines about the surviving clients' connections (none of the burst JVM's, at either end). */
    List<String> survivorFailureLines() {
        String burstKind = "@" + options.clients() + " ";
        List<String> lines = new ArrayList<>();
        for (String line : failureLines()) {
            if (!line.contains(burstKind) && !line.startsWith("client-" + options.clients() + ":")) {
                lines.add(line);
            }
        }
        return lines;
    }

    /** Failures of one kind of the surviving clients' connections, at the client end. */
    long survivorFailures(String kind) {
        return clients.stream()
                .mapToLong(c -> c.stat().counts("failures").getOrDefault(kind, 0L))
                .sum();
    }

    /** Failures of the surviving clients' connections, seen at either end. */
    long survivorFailures() {
        return clients.stream().mapToLong(c -> c.stat().failures()).sum() + serverFailures(false);
    }

    /** Failures the server saw on the surviving clients' connections ({@code burst} false) or the burst JVM's (true). */
    long serverFailures(boolean burstOnes) {
        String burstSuffix = "@" + options.clients();
        return server.stat().counts("failures").entrySet().stream()
                .filter(e -> e.getKey().endsWith(burstSuffix) == burstOnes)
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    /** Every latency recorded so far, all clients together. */
    LatencyHistogram latencies() {
        LatencyHistogram all = new LatencyHistogram();
        for (LoadClientProcess c : allClients()) {
            all.add(c.all());
        }
        return all;
    }

    List<LoadClientProcess> allClients() {
        List<LoadClientProcess> all = new ArrayList<>(clients);
        if (burst != null) {
            all.add(burst);
        }
        return all;
    }

    /** Failures of every client (the burst JVM's until it died) and of the server, all kinds. */
    long failureCount() {
        return allClients().stream().mapToLong(c -> c.stat().failures()).sum()
                + server.stat().failures();
    }

    List<String> failureLines() {
        List<String> lines = new ArrayList<>(server.failureLines());
        for (LoadClientProcess c : allClients()) {
            lines.addAll(c.failureLines());
        }
        return lines;
    }

    /**
     * Prints a progress line (held, MB/s, latency since the last line, hub memory and CPU) and
     * returns it as a point; {@code hubHeap} -1 when not measured.
     */
    LoadResult.Point progress(long hubHeap) throws IOException {
        long now = System.nanoTime();
        long sent = sent();
        double mbps = (sent - lastSent) / 1e6 / ((now - lastNanos) / 1e9);
        LatencyHistogram window = new LatencyHistogram();
        List<LoadClientProcess> all = allClients();
        while (lastHistograms.size() < all.size()) {
            lastHistograms.add(new LatencyHistogram());
        }
        for (int i = 0; i < all.size(); i++) {
            LatencyHistogram h = all.get(i).all();
            window.add(h.since(lastHistograms.get(i)));
            lastHistograms.set(i, h);
        }
        lastSent = sent;
        lastNanos = now;
        int held = held();
        ProcessSample s = hub.sample();
        noteWindowFairness();
        LoadResult.Point p = new LoadResult.Point(
                seconds(),
                held,
                s.rssBytes(),
                hubHeap,
                window.quantileMicros(0.5) / 1e3,
                window.quantileMicros(0.99) / 1e3,
                mbps,
                held == 0 ? 0 : mbps * 1e6 / held);
        log.printf(
                Locale.ROOT,
                "t=%5.1fs held=%d server-open=%d %.2f MB/s rtt p50=%.1f p99=%.1f max=%.1f ms late=%d failures=%d"
                        + " | hub rss=%.1f MiB threads=%d cpu=%.1fs%n",
                p.seconds(),
                held,
                server.openTotal(),
                mbps,
                p.p50Millis(),
                p.p99Millis(),
                window.maxMicros() / 1e3,
                clients.stream().mapToLong(c -> c.stat().get("late")).sum(),
                failureCount(),
                s.rssBytes() / 1048576.0,
                s.threads(),
                s.cpuSeconds());
        return p;
    }

    /** Keeps the worst most/least ratio of the clients' last 5-second windows (when a window holds 50 chunks or more). */
    private void noteWindowFairness() {
        if (options.intervalMillis() * 50 > StreamTally.WINDOW_LINES * 1000L) {
            worstWindowFairness = Double.NaN;
            return;
        }
        long min = Long.MAX_VALUE;
        long max = 0;
        for (LoadClientProcess c : allClients()) {
            Stat s = c.stat();
            if (c.alive() && s.get("winConns") > 0) {
                min = Math.min(min, s.get("winMin"));
                max = Math.max(max, s.get("winMax"));
            }
        }
        if (max > 0) {
            worstWindowFairness =
                    Math.max(worstWindowFairness, min == 0 ? Double.POSITIVE_INFINITY : (double) max / min);
        }
    }

    double worstWindowFairness() {
        return worstWindowFairness;
    }

    /** Fastest / slowest verified stream of the surviving clients (bytes per second of life). */
    double streamFairness() {
        long min = clients.stream()
                .filter(c -> c.stat().get("verified") > 0)
                .mapToLong(c -> c.stat().get("rateMin"))
                .min()
                .orElse(0);
        long max =
                clients.stream().mapToLong(c -> c.stat().get("rateMax")).max().orElse(0);
        return min == 0 ? Double.NaN : (double) max / min;
    }

    /** Sleeps {@code seconds}, printing a progress line every {@code progress-seconds} and checking the children. */
    List<LoadResult.Point> hold(double seconds) throws IOException, InterruptedException {
        List<LoadResult.Point> points = new ArrayList<>();
        long end = System.nanoTime() + (long) (seconds * 1e9);
        long step = TimeUnit.SECONDS.toNanos(options.progressSeconds());
        while (System.nanoTime() < end) {
            check();
            Thread.sleep(Math.max(1, Math.min(step, end - System.nanoTime()) / 1_000_000));
            points.add(progress(-1));
        }
        return points;
    }

    /** FINISH to every surviving client at once; waits until each has verified its streams. */
    void finishAll() {
        long limit = options.readTimeoutMillis() / 1000 + 60;
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (LoadClientProcess c : clients) {
            done.add(CompletableFuture.runAsync(() -> {
                try {
                    c.finish(limit);
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException(
                            "client JVM " + c.group() + " did not finish: " + e.getMessage(), e);
                }
            }));
        }
        done.forEach(CompletableFuture::join);
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                log.println("# closing a child: " + e);
            }
        }
    }
}
