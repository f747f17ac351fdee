package io.traverse.bench;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

/**
 * The command line both round runners share: {@code --rounds N --warmup N --iterations N --time MS
 * --only a,b --csv FILE --verbose --help}.
 */
record RoundOptions(int rounds, JmhRuns.Settings settings, Set<String> only, Path csv) {
    /**
     * Parses {@code args} over the given defaults; empty (after printing the usage) for
     * {@code --help}.
     *
     * @throws IllegalArgumentException for an unknown option or a bad value
     */
    static Optional<RoundOptions> parse(
            String runner, String[] args, int rounds, int warmup, Set<String> only, String metrics) {
        int iterations = 5;
        int time = 1000;
        boolean verbose = false;
        Path csv = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--rounds" -> rounds = JmhRuns.atLeast(a, args, ++i, 1);
                case "--warmup" -> warmup = JmhRuns.atLeast(a, args, ++i, 0);
                case "--iterations" -> iterations = JmhRuns.atLeast(a, args, ++i, 1);
                case "--time" -> time = JmhRuns.atLeast(a, args, ++i, 1);
                case "--only" -> only = Set.of(JmhRuns.value(a, args, ++i).split(","));
                case "--csv" -> csv = Path.of(JmhRuns.value(a, args, ++i));
                case "--verbose" -> verbose = true;
                case "-h", "--help" -> {
                    System.out.println(
                            "usage: " + runner + " [--rounds N] [--warmup N] [--iterations N] [--time MS] [--only "
                                    + metrics + "] [--csv FILE] [--verbose]");
                    return Optional.empty();
                }
                default -> throw new IllegalArgumentException("unknown option " + a + " (try --help)");
            }
        }
        return Optional.of(
                new RoundOptions(rounds, new JmhRuns.Settings(warmup, iterations, time, verbose), only, csv));
    }
}
