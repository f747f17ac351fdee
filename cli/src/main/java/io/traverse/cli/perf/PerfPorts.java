package io.traverse.cli.perf;

/**
 * The three services of a perf server, on consecutive ports from a base (virtual ports, and the
 * same numbers in plain TCP): verification (uploads), echo (round trips), source (downloads).
 */
record PerfPorts(int base) {
    /** iperf's port. */
    static final int DEFAULT_BASE = 5201;

    PerfPorts {
        if (base < 1 || base > 65533) {
            throw new IllegalArgumentException("port " + base + " leaves no room for the three services (1-65533)");
        }
    }

    /** The ports from {@code base}, or the usage error of {@code command}. */
    static PerfPorts from(int base, picocli.CommandLine.Model.CommandSpec command) {
        try {
            return new PerfPorts(base);
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(command.commandLine(), e.getMessage());
        }
    }

    int upload() {
        return base;
    }

    int echo() {
        return base + 1;
    }

    int download() {
        return base + 2;
    }
}
