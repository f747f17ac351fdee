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
 * --timeout-ms N     Traverse connect timeout (10000)
 * --plain-timeout-ms N  plain socket connect timeout (5000)
 * --cold-parallel N  cold JVMs started at once (1: one after the other, for clean timings)
 * --no-cold          skip the cold connections
 * --sites a,b,...    only these sites (default: all six)
 * --json FILE        also write the results as JSON
 * </pre>
 */
public record MatrixOptions(long bytes, long checkBytes, long coldBytes, int rounds, Duration timeout, Duration plainTimeout,
        int coldParallel, boolean cold, List<String> sites, Optional<Path> json) {

    public MatrixOptions {
        if (bytes < 1 || checkBytes < 0 || coldBytes < 0 || rounds < 1 || coldParallel < 1) {
            throw new IllegalArgumentException("sizes, rounds and parallelism must be positive");
        }
        sites = List.copyOf(sites);
    }

    /** The full run recorded in docs/benchmarks.md. */
    public static MatrixOptions full() {
        return new MatrixOptions(16L << 20, 64 << 10, 1 << 20, 1000, Duration.ofSeconds(10), Duration.ofSeconds(5), 1, true,
                List.of(), Optional.empty());
    }

    public static MatrixOptions parse(String[] args) {
        MatrixOptions o = full();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--no-cold")) {
                o = new MatrixOptions(o.bytes, o.checkBytes, o.coldBytes, o.rounds, o.timeout, o.plainTimeout, o.coldParallel,
                        false, o.sites, o.json);
                continue;
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + arg + " needs a value");
            }
            String v = args[++i];
            o = switch (arg) {
                case "--bytes" -> new MatrixOptions(Long.parseLong(v), o.checkBytes, o.coldBytes, o.rounds, o.timeout,
                        o.plainTimeout, o.coldParallel, o.cold, o.sites, o.json);
                case "--check-bytes" -> new MatrixOptions(o.bytes, Long.parseLong(v), o.coldBytes, o.rounds, o.timeout,
                        o.plainTimeout, o.coldParallel, o.cold, o.sites, o.json);
                case "--cold-bytes" -> new MatrixOptions(o.bytes, o.checkBytes, Long.parseLong(v), o.rounds, o.timeout,
                        o.plainTimeout, o.coldParallel, o.cold, o.sites, o.json);
                case "--rounds" -> new MatrixOptions(o.bytes, o.checkBytes, o.coldBytes, Integer.parseInt(v), o.timeout,
                        o.plainTimeout, o.coldParallel, o.cold, o.sites, o.json);
                case "--timeout-ms" -> new MatrixOptions(o.bytes, o.checkBytes, o.coldBytes, o.rounds,
                        Duration.ofMillis(Long.parseLong(v)), o.plainTimeout, o.coldParallel, o.cold, o.sites, o.json);
                case "--plain-timeout-ms" -> new MatrixOptions(o.bytes, o.checkBytes, o.coldBytes, o.rounds, o.timeout,
                        Duration.ofMillis(Long.parseLong(v)), o.coldParallel, o.cold, o.sites, o.json);
                case "--cold-parallel" -> new MatrixOptions(o.bytes, o.checkBytes, o.coldBytes, o.rounds, o.timeout,
                        o.plainTimeout, Integer.parseInt(v), o.cold, o.sites, o.json);
                case "--sites" -> new MatrixOptions(o.bytes, o.checkBytes, o.coldBytes, o.rounds, o.timeout, o.plainTimeout,
                        o.coldParallel, o.cold, List.of(v.split(",")), o.json);
                case "--json" -> new MatrixOptions(o.bytes, o.checkBytes, o.coldBytes, o.rounds, o.timeout, o.plainTimeout,
                        o.coldParallel, o.cold, o.sites, Optional.of(Path.of(v)));
                default -> throw new IllegalArgumentException("unknown option " + arg);
            };
        }
        return o;
    }

    /** The same with other sizes: for scaled-down runs. */
    public MatrixOptions scaled(long newBytes, long newColdBytes, int newRounds, int newColdParallel) {
        return new MatrixOptions(newBytes, checkBytes, newColdBytes, newRounds, timeout, plainTimeout, newColdParallel, cold,
                sites, json);
    }

    /** The same with another plain connect timeout. */
    public MatrixOptions plainTimeout(Duration newTimeout) {
        return new MatrixOptions(bytes, checkBytes, coldBytes, rounds, timeout, newTimeout, coldParallel, cold, sites, json);
    }
}
