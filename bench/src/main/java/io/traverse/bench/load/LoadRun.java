package io.traverse.bench.load;

import java.io.PrintStream;

/**
 * The hub under load and churn, after CastGate's load and stress tests: one hub, one
 * server JVM and several client JVMs of emulated nodes on loopback, every connection relayed
 * through the hub, each writing seeded random bytes at a steady pace and verified end to end.
 * {@code --mode ramp} ({@link RampScenario}) finds where the hub breaks; {@code --mode churn}
 * ({@link ChurnScenario}) checks that connections that stay are untouched by others coming, going
 * and dying; {@code --mode restart} ({@link RestartScenario}) crashes the hub and brings it back.
 * Prints progress lines, then a summary block for docs/benchmarks.md; exits 1 when a churn run's
 * survivors lost anything or a restart run saw anything but resets. {@code bench/run-load.sh} runs it; {@code --help} lists the options.
 */
public final class LoadRun {
    private LoadRun() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.println("bench/run-load.sh [--name value ...]\n" + LoadOptions.usage());
            return;
        }
        LoadOptions o;
        try {
            o = LoadOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("run-load: " + e.getMessage());
            System.exit(2);
            return;
        }
        PrintStream out = System.out;
        out.println("# " + LoadReport.uptime() + "; " + o);
        LoadResult r = run(o, out);
        out.println();
        out.print(LoadReport.summary(r));
        if (o.plots() != null) {
            LoadPlots.write(r, o.plots());
            out.println("plots written to " + o.plots());
        }
        System.exit(
                o.mode().equals("churn") && !(r.survivorsClean() && r.why().isEmpty())
                                || o.mode().equals("restart")
                                        && !(r.otherFailures() == 0 && r.why().isEmpty())
                        ? 1
                        : 0);
    }

    static LoadResult run(LoadOptions o, PrintStream log) throws Exception {
        return switch (o.mode()) {
            case "ramp" -> RampScenario.run(o, log);
            case "churn" -> ChurnScenario.run(o, log);
            default -> RestartScenario.run(o, log);
        };
    }
}
