package io.traverse.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs one JMH benchmark with one contender in a fork of its own and reduces it to a figure; the
 * statistics the round runners ({@link DirectRounds}, {@link RelayRounds}) share.
 */
final class JmhRuns {
    /** How long each run is. */
    record Settings(int warmup, int iterations, int timeMillis, boolean verbose) {}

    /** Figures of one run: the median (over sampled operations or iterations) and the JMH mean. */
    record Figure(double median, double mean) {
        static final Figure FAILED = new Figure(Double.NaN, Double.NaN);
    }

    private JmhRuns() {}

    /** The JMH include pattern for exactly {@code io.traverse.bench.<benchmark>}. */
    static String include(String benchmark) {
        return "^" + ("io.traverse.bench." + benchmark).replace(".", "\\.") + "$";
    }

    /** Runs {@code benchmark} with {@code contender}; {@code scale} turns its unit into the metric's. */
    static Figure run(String benchmark, String contender, double scale, Settings settings) throws RunnerException {
        OptionsBuilder opts = new OptionsBuilder();
        opts.include(include(benchmark))
                .param("contender", contender)
                .forks(1)
                .warmupIterations(settings.warmup())
                .warmupTime(TimeValue.milliseconds(settings.timeMillis()))
                .measurementIterations(settings.iterations())
                .measurementTime(TimeValue.milliseconds(settings.timeMillis()))
                .jvmArgsAppend("-Xms1g", "-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                .shouldFailOnError(true)
                .verbosity(settings.verbose() ? VerboseMode.NORMAL : VerboseMode.SILENT);
        Result<?> result = new Runner(opts.build()).runSingle().getPrimaryResult();
        // SampleTime: statistics over every sampled operation; Throughput/AverageTime: over the iterations.
        return new Figure(result.getStatistics().getPercentile(50.0) * scale, result.getScore() * scale);
    }

    /** A CSV file with its header line, or null when {@code csv} is null. */
    static PrintWriter openCsv(Path csv, String header) throws IOException {
        if (csv == null) {
            return null;
        }
        if (csv.toAbsolutePath().getParent() != null) {
            Files.createDirectories(csv.toAbsolutePath().getParent());
        }
        PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv, StandardCharsets.UTF_8));
        out.println(header);
        return out;
    }

    /** The end of a runner's report: the runs that failed and where the per-run figures went. */
    static void printFailuresAndCsv(java.util.List<String> failures, Path csv) {
        if (!failures.isEmpty()) {
            System.out.println();
            System.out.println(failures.size() + " run(s) failed:");
            failures.forEach(f -> System.out.println("  " + f));
        }
        if (csv != null) {
            System.out.println("Per-run figures: " + csv);
        }
    }

    /** The median of the values that are not NaN (failed runs); NaN if there are none. */
    static double median(double[] values) {
        double[] v =
                Arrays.stream(values).filter(x -> !Double.isNaN(x)).sorted().toArray();
        int n = v.length;
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    static double min(double[] values) {
        return Arrays.stream(values).filter(x -> !Double.isNaN(x)).min().orElse(Double.NaN);
    }

    static double max(double[] values) {
        return Arrays.stream(values).filter(x -> !Double.isNaN(x)).max().orElse(Double.NaN);
    }

    /** The benchmark's own exception, which JMH attaches as a suppressed one, else the deepest message. */
    static String rootMessage(Throwable e) {
        String last = e.toString();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null) {
                last = t.getClass().getSimpleName() + ": " + t.getMessage();
            }
            for (Throwable s : t.getSuppressed()) {
                return rootMessage(s);
            }
        }
        return last;
    }

    static String value(String option, String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    static int atLeast(String option, String[] args, int i, int min) {
        int v = Integer.parseInt(value(option, args, i));
        if (v < min) {
            throw new IllegalArgumentException(option + " must be at least " + min);
        }
        return v;
    }
}
