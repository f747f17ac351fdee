package io.traverse.bench.load;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The options of a load run ({@code bench/run-load.sh --help} lists them), read once from
 * {@code --name value} pairs and checked here.
 */
record LoadOptions(
        String mode,
        String transport,
        int hubs,
        int clients,
        int nodesPerClient,
        int serverNodes,
        int chunk,
        long intervalMillis,
        int readTimeoutMillis,
        int step,
        int stepSeconds,
        int maxConnections,
        long p99LimitMillis,
        double lateLimit,
        int connections,
        long lifetimeMillis,
        int burst,
        int burstNodes,
        String burstEnd,
        int seconds,
        int rampSeconds,
        int progressSeconds,
        String hubHeap,
        int hubIoThreads,
        String clientHeap,
        long seed,
        Path plots,
        int deadlineSeconds) {

    static final Map<String, String> DEFAULTS = defaults();

    private static Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("mode", "ramp"); // ramp | churn | restart
        d.put("transport", "routed"); // routed | plain: the control run, the same harness on plain loopback sockets
        d.put("hubs", "1"); // hubs in a line: clients link to the first, the server to the last
        d.put("clients", "2"); // client JVMs (churn: survivors; the burst JVM comes on top)
        d.put("nodes", "10"); // emulated nodes per client JVM
        d.put("server-nodes", "1"); // server nodes (one server JVM)
        d.put("chunk", "4096"); // bytes per chunk
        d.put("interval-ms", "50"); // one chunk per connection every interval
        d.put("read-timeout-ms", "30000"); // a read waiting longer fails the connection (both sides)
        d.put("step", "100"); // ramp: connections added per step
        d.put("step-seconds", "10"); // ramp: length of a step (a third to open, the rest measured)
        d.put("max-connections", "2000"); // ramp: stop here if nothing broke
        d.put("p99-limit-ms", "1000"); // ramp: a step whose p99 round trip is above this breaks
        d.put("late-limit", "0.25"); // ramp: a step with more late chunks than this fraction breaks
        d.put("connections", "1000"); // churn: mean connections held by the surviving clients
        d.put("lifetime-ms", "20000"); // churn: mean lifetime of a surviving connection
        d.put("burst", "500"); // churn: connections of the JVM that is SIGKILLed (0: none)
        d.put("burst-nodes", "10"); // churn: nodes of that JVM
        d.put(
                "burst-end",
                "kill"); // churn: how the burst JVM goes: kill (SIGKILL) | drop (its hub links fall silent, nft)
        d.put("seconds", "60"); // churn: run length after the ramp; the kill comes half-way
        d.put("ramp-seconds", "20"); // churn: time over which connections are first opened
        d.put("progress-seconds", "5"); // a progress line this often
        d.put("hub-heap", "1g"); // -Xmx of the hub JVM
        d.put("hub-io-threads", "0"); // the hub's I/O threads, 0: its default (min(4, CPUs))
        d.put("client-heap", "1g"); // -Xmx of the client and server JVMs
        d.put("seed", "21");
        d.put("plots", ""); // a folder: write PNG plots there (XChart)
        d.put("deadline-seconds", "900"); // the whole run stops by then, whatever happens
        return d;
    }

    static LoadOptions parse(String... args) {
        Map<String, String> v = new LinkedHashMap<>(DEFAULTS);
        for (int i = 0; i < args.length; i++) {
            String name = args[i].startsWith("--") ? args[i].substring(2) : null;
            if (name == null || !v.containsKey(name) || i + 1 >= args.length) {
                throw new IllegalArgumentException(
                        "unknown option or missing value: " + args[i] + " (--help lists the options)");
            }
            v.put(name, args[++i]);
        }
        LoadOptions o = new LoadOptions(
                v.get("mode"),
                v.get("transport"),
                i(v, "hubs"),
                i(v, "clients"),
                i(v, "nodes"),
                i(v, "server-nodes"),
                i(v, "chunk"),
                l(v, "interval-ms"),
                i(v, "read-timeout-ms"),
                i(v, "step"),
                i(v, "step-seconds"),
                i(v, "max-connections"),
                l(v, "p99-limit-ms"),
                Double.parseDouble(v.get("late-limit")),
                i(v, "connections"),
                l(v, "lifetime-ms"),
                i(v, "burst"),
                i(v, "burst-nodes"),
                v.get("burst-end"),
                i(v, "seconds"),
                i(v, "ramp-seconds"),
                i(v, "progress-seconds"),
                v.get("hub-heap"),
                i(v, "hub-io-threads"),
                v.get("client-heap"),
                l(v, "seed"),
                v.get("plots").isEmpty() ? null : Path.of(v.get("plots")),
                i(v, "deadline-seconds"));
        if (!o.mode.equals("ramp") && !o.mode.equals("churn") && !o.mode.equals("restart")) {
            throw new IllegalArgumentException("--mode is ramp, churn or restart, not " + o.mode);
        }
        if (!o.transport.equals("routed") && !o.transport.equals("plain")) {
            throw new IllegalArgumentException("--transport is routed or plain, not " + o.transport);
        }
        if (!o.burstEnd.equals("kill") && !o.burstEnd.equals("drop")) {
            throw new IllegalArgumentException("--burst-end is kill or drop, not " + o.burstEnd);
        }
        if (o.mode.equals("restart") && o.hubs != 1) {
            throw new IllegalArgumentException("--mode restart restarts the one hub: --hubs 1");
        }
        if (o.chunk < PacedStreamFormat.MIN_CHUNK || o.chunk > PacedStreamFormat.MAX_CHUNK) {
            throw new IllegalArgumentException(
                    "--chunk must be within " + PacedStreamFormat.MIN_CHUNK + "-" + PacedStreamFormat.MAX_CHUNK);
        }
        if (o.hubs < 1
                || o.hubs > 5
                || o.clients < 1
                || o.nodesPerClient < 1
                || o.serverNodes < 1
                || o.intervalMillis < 1
                || o.step < 1
                || o.stepSeconds < 3
                || o.deadlineSeconds < 10
                || o.connections < 0
                || o.burst < 0
                || o.burstNodes < 1) {
            throw new IllegalArgumentException("a count or time is out of range: " + o);
        }
        return o;
    }

    static String usage() {
        StringBuilder b = new StringBuilder("options (default):\n");
        DEFAULTS.forEach((k, d) -> b.append("  --")
                .append(k)
                .append(' ')
                .append(d.isEmpty() ? "''" : d)
                .append('\n'));
        return b.toString();
    }

    private static int i(Map<String, String> v, String k) {
        return Integer.parseInt(v.get(k));
    }

    private static long l(Map<String, String> v, String k) {
        return Long.parseLong(v.get(k));
    }
}
