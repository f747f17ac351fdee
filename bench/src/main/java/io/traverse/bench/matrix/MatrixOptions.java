package io.traverse.bench.matrix;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * What one matrix run measures, read once from the command line:
 * <pre>
 * --bytes N          throughput transfer per pair (16777216 = 16 MiB)
 * --check-bytes N    bytes of every other verified connection (65536)
 * --cold-bytes N     bytes of the cold connection (1048576)
 * --rounds N         one-byte round trips per pair, after as many to warm up (1000)
 * --repeats N        cached connections per pair; the median setup is reported (5)
 * --timeout-ms N     Traverse connect timeout (10000)
 * --plain-timeout-ms N  plain socket connect timeout (5000)
 * --cold-parallel N  cold JVMs started at once (1: one after the other, for clean timings)
 * --no-cold          skip the cold connections
 * --sites a,b,...    only these sites (default: the paper's six and proxy-only)
 * --json FILE        also write the results as JSON
 * --network paper|everyday  the paper's sites and proxy-only (the default), or {@link EverydaySites}
 * --latency wan|none  WAN latency between the sites (the paper's round trips of Table 4, or the
 *                    everyday sites' access latencies), or none (the default)
 * </pre>
 */
public record MatrixOptions(
        long bytes,
        long checkBytes,
        long coldBytes,
        int rounds,
        int repeats,
        Duration timeout,
        Duration plainTimeout,
        int coldParallel,
        boolean cold,
        List<String> sites,
        Optional<Path> json,
        String network,
        String latency) {

    public MatrixOptions {
        if (bytes < 1 || checkBytes < 0 || coldBytes < 0 || rounds < 1 || repeats < 1 || coldParallel < 1) {
            throw new IllegalArgumentException("sizes, rounds and parallelism must be positive");
        }
        if (!latency.equals("none") && !latency.equals("wan")) {
            throw new IllegalArgumentException("--latency is wan or none, not " + latency);
        }
        if (!network.equals("paper") && !network.equals("everyday")) {
            throw new IllegalArgumentException("--network is paper or everyday, not " + network);
        }
        sites = List.copyOf(sites);
    }

    /**
     * Routers between two sites on the internet, as on the real one (paths of 8-20 hops): a SYN
     * with a small TTL dies before the far NAT. The paper's network without latency keeps the
     * plain bridge (no router), as before.
     */
    public static final int INTERNET_HOPS = 8;

    /** The WAN latency between the sites of the {@link #network}, or none; with {@link #INTERNET_HOPS} but for the paper's bridge. */
    public io.traverse.testbed.WanLatency wanLatency() {
        if (latency.equals("none")) {
            return network.equals("paper")
                    ? io.traverse.testbed.WanLatency.none()
                    : io.traverse.testbed.WanLatency.none().withHops(INTERNET_HOPS);
        }
        return (network.equals("paper") ? PaperSites.TABLE_4_ROUND_TRIPS : EverydaySites.ACCESS_LATENCY)
                .withHops(INTERNET_HOPS);
    }

    /** The sites of the {@link #network}, or those of them that {@link #sites} names. */
    public List<io.traverse.testbed.SiteLine> siteLines() {
        List<io.traverse.testbed.SiteLine> all =
                network.equals("paper") ? PaperSites.TABLE_2_AND_PROXY_ONLY : EverydaySites.SITES;
        return sites.isEmpty()
                ? all
                : all.stream().filter(s -> sites.contains(s.name())).toList();
    }

    /** The same on another network and with another latency. */
    public MatrixOptions on(String newNetwork, String newLatency) {
        return new MatrixOptions(
                bytes,
                checkBytes,
                coldBytes,
                rounds,
                repeats,
                timeout,
                plainTimeout,
                coldParallel,
                cold,
                sites,
                json,
                newNetwork,
                newLatency);
    }

    /** The full run recorded in docs/benchmarks.md. */
    public static MatrixOptions full() {
        return new MatrixOptions(
                16L << 20,
                64 << 10,
                1 << 20,
                1000,
                5,
                Duration.ofSeconds(10),
                Duration.ofSeconds(5),
                1,
                true,
                List.of(),
                Optional.empty(),
                "paper",
                "none");
    }

    public static MatrixOptions parse(String[] args) {
        MatrixOptions d = full();
        long bytes = d.bytes;
        long checkBytes = d.checkBytes;
        long coldBytes = d.coldBytes;
        int rounds = d.rounds;
        int repeats = d.repeats;
        Duration timeout = d.timeout;
        Duration plainTimeout = d.plainTimeout;
        int coldParallel = d.coldParallel;
        boolean cold = true;
        List<String> sites = List.of();
        Optional<Path> json = Optional.empty();
        String latency = d.latency;
        String network = d.network;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--no-cold")) {
                cold = false;
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + arg + " needs a value");
            }
            String v = args[++i];
            switch (arg) {
                case "--bytes" -> bytes = Long.parseLong(v);
                case "--check-bytes" -> checkBytes = Long.parseLong(v);
                case "--cold-bytes" -> coldBytes = Long.parseLong(v);
                case "--rounds" -> rounds = Integer.parseInt(v);
                case "--repeats" -> repeats = Integer.parseInt(v);
                case "--timeout-ms" -> timeout = Duration.ofMillis(Long.parseLong(v));
                case "--plain-timeout-ms" -> plainTimeout = Duration.ofMillis(Long.parseLong(v));
                case "--cold-parallel" -> coldParallel = Integer.parseInt(v);
                case "--sites" -> sites = List.of(v.split(","));
                case "--json" -> json = Optional.of(Path.of(v));
                case "--latency" -> latency = v;
                case "--network" -> network = v;
                default -> throw new IllegalArgumentException("unknown option " + arg);
            }
        }
        return new MatrixOptions(
                bytes,
                checkBytes,
                coldBytes,
                rounds,
                repeats,
                timeout,
                plainTimeout,
                coldParallel,
                cold,
                sites,
                json,
                network,
                latency);
    }

    /** The same with other sizes: for scaled-down runs. */
    public MatrixOptions scaled(long newBytes, long newColdBytes, int newRounds, int newRepeats, int newColdParallel) {
        return new MatrixOptions(
                newBytes,
                checkBytes,
                newColdBytes,
                newRounds,
                newRepeats,
                timeout,
                plainTimeout,
                newColdParallel,
                cold,
                sites,
                json,
                network,
                latency);
    }

    /** The same with another plain connect timeout. */
    public MatrixOptions plainTimeout(Duration newTimeout) {
        return new MatrixOptions(
                bytes,
                checkBytes,
                coldBytes,
                rounds,
                repeats,
                timeout,
                newTimeout,
                coldParallel,
                cold,
                sites,
                json,
                network,
                latency);
    }
}
