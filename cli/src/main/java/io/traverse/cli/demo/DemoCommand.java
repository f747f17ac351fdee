package io.traverse.cli.demo;

import io.traverse.cli.LogLevel;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code traverse demo}: the main job, on an embedded topology, no root needed. */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "Start several nodes on loopback with simulated firewalls, connect every pair and "
                    + "print which module won, first and cached setup time, RTT, throughput and verified bytes. With OpenSSH's "
                    + "sshd installed, the demo runs its own and a node that only it reaches. As root with ip and nft, it adds a real "
                    + "network: sites in network namespaces behind real NAT whose nodes splice, and (with miniupnpd) a router "
                    + "that maps a node's port.",
            "Exits 0 when every pair behaved as its firewalls predict."
        })
public final class DemoCommand implements Callable<Integer> {
    @Option(
            names = "--timeout",
            defaultValue = "800",
            paramLabel = "MS",
            description = "connect timeout in milliseconds (default: ${DEFAULT-VALUE})")
    int timeoutMillis;

    @Option(
            names = "--pings",
            defaultValue = "2000",
            description =
                    "1-byte round trips per pair, at most 500 through hubs or an sshd (default: ${DEFAULT-VALUE})")
    int pings;

    @Option(
            names = "--mib",
            defaultValue = "64",
            description =
                    "MiB sent per pair for throughput, at most 16 through hubs or an sshd (default: ${DEFAULT-VALUE})")
    int throughputMib;

    @Option(
            names = "--verify-mib",
            defaultValue = "8",
            description = "MiB sent per pair with an end-to-end SHA-256 check (default: ${DEFAULT-VALUE})")
    int verifyMib;

    @Option(names = "--no-ssh", description = "leave out the demo's own sshd and the node only it reaches")
    boolean noSsh;

    @Option(
            names = "--no-real-network",
            description = "leave out the real network (network namespaces behind real NAT, as root)")
    boolean noRealNetwork;

    @Option(
            names = "--splice",
            description =
                    "also run two nodes on a public interface address of this machine, predicted to "
                            + "splice (on one host the kernel resets an early SYN at once: needs an idle machine, see docs/operations.md)")
    boolean splice;

    @Override
    public Integer call() throws Exception {
        LogLevel.defaultTo("warn");
        if (pings < 1 || throughputMib < 1 || verifyMib < 1 || timeoutMillis < 1) {
            throw new picocli.CommandLine.ParameterException(
                    new picocli.CommandLine(this), "--timeout, --pings, --mib and --verify-mib must be at least 1");
        }
        return new LoopbackDemo(
                        Duration.ofMillis(timeoutMillis),
                        pings,
                        throughputMib * 1024L * 1024L,
                        verifyMib * 1024L * 1024L,
                        !noSsh,
                        splice,
                        !noRealNetwork)
                .run(System.out);
    }
}
