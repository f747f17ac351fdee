package io.traverse.cli.demo;

import io.traverse.cli.LogLevel;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code traverse demo}: the main job, on an embedded topology, no root needed. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Start several nodes on loopback with simulated firewalls, connect every pair and "
                + "print which module won, first and cached setup time, RTT, throughput and verified bytes.",
                "Exits 0 when every pair behaved as its firewalls predict."})
public final class DemoCommand implements Callable<Integer> {
    @Option(names = "--timeout", defaultValue = "800", paramLabel = "MS",
            description = "connect timeout in milliseconds (default: ${DEFAULT-VALUE})")
    int timeoutMillis;

    @Option(names = "--pings", defaultValue = "2000", description = "1-byte round trips per pair (default: ${DEFAULT-VALUE})")
    int pings;

    @Option(names = "--mib", defaultValue = "64", description = "MiB sent per pair for throughput (default: ${DEFAULT-VALUE})")
    int throughputMib;

    @Option(names = "--verify-mib", defaultValue = "8",
            description = "MiB sent per pair with an end-to-end SHA-256 check (default: ${DEFAULT-VALUE})")
    int verifyMib;

    @Override
    public Integer call() throws Exception {
        LogLevel.defaultTo("warn");
        if (pings < 1 || throughputMib < 1 || verifyMib < 1 || timeoutMillis < 1) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "--timeout, --pings, --mib and --verify-mib must be at least 1");
        }
        return new LoopbackDemo(Duration.ofMillis(timeoutMillis), pings, throughputMib * 1024L * 1024L,
                verifyMib * 1024L * 1024L).run(System.out);
    }
}
