package io.traverse.bench.matrix;

import io.traverse.testbed.RoundTripResult;
import io.traverse.testbed.TransferResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Everything measured for one ordered pair of sites' nodes, and what the topology predicted.
 *
 * @param source          the connecting site
 * @param target          the accepting site
 * @param targetNode      the target node's id (a plain socket that reaches another machine fails)
 * @param expectedModule  the module the topology predicts ({@code ExpectedPath})
 * @param expectedBecause why
 * @param firstMayBe      the module that may win the first connections (cold and settled first) instead,
 *                        while the expected path is still being set up; empty if none ({@code ExpectedPath})
 * @param plainExpected   whether the topology lets a plain socket through
 * @param plain           a plain {@code java.net.Socket} to the target's plain port
 * @param cold            a fresh JVM's first connection, made the moment its node is up (empty if skipped)
 * @param first           the settled source node's first connection to the target (nothing cached)
 * @param cached          its later ones (module cache filled): the first failure, or the one with the median setup
 * @param rtt             round trips over a Traverse connection
 * @param plainRtt        round trips over a plain socket, if plain sockets get through
 * @param throughput      the large transfer over Traverse
 * @param plainThroughput the large transfer over a plain socket, if plain sockets get through
 * @param upgradeMillis   when the first connection was won by {@code firstMayBe}: how long after it the
 *                        expected module was cached (empty if not within the matrix's wait, or not needed)
 */
public record PairResult(
        String source,
        String target,
        String targetNode,
        String expectedModule,
        String expectedBecause,
        String firstMayBe,
        boolean plainExpected,
        TransferResult plain,
        Optional<TransferResult> cold,
        TransferResult first,
        TransferResult cached,
        RoundTripResult rtt,
        Optional<RoundTripResult> plainRtt,
        TransferResult throughput,
        Optional<TransferResult> plainThroughput,
        Optional<Long> upgradeMillis) {

    /** True if the plain socket connected, moved the data intact and reached the target node (not another 10.0.0.3). */
    public boolean plainWorked() {
        return plain.ok() && plain.servedBy().equals(targetNode);
    }

    /** Why the plain socket failed, or empty. */
    public String plainFailure() {
        if (plainWorked()) {
            return "";
        }
        return plain.ok() ? "reached another machine (node " + plain.servedBy() + ")" : plain.error();
    }

    /** Throughput of a transfer in MB/s (10^6 bytes), its setup left out; -1 if it failed. */
    public static double megabytesPerSecond(TransferResult r) {
        double seconds = (r.elapsedMillis() - r.setupMillis()) / 1000.0;
        return !r.ok() || seconds <= 0 ? -1 : r.bytes() / seconds / 1e6;
    }

    /** Everything that differs from what the topology predicts, or failed; empty when the pair is as it should be. */
    public List<String> problems() {
        List<String> problems = new ArrayList<>();
        String pair = source + " -> " + target + ": ";
        if (plainWorked() != plainExpected) {
            problems.add(pair + "plain socket expected to " + (plainExpected ? "work" : "fail") + " but "
                    + (plainWorked() ? "it worked" : "it failed: " + plainFailure()));
        }
        cold.ifPresent(c -> check(problems, pair + "cold", c, false));
        check(
                problems,
                pair + "settled first",
                first,
                !(first.ok() && first.module().equals(firstMayBe)));
        check(problems, pair + "cached", cached, true);
        check(problems, pair + "throughput", throughput, true);
        if (!rtt.ok()) {
            problems.add(pair + "round trips failed: " + rtt.error());
        } else if (!rtt.module().equals(expectedModule)) {
            problems.add(pair + "round trips: expected " + expectedModule + ", got " + rtt.module());
        }
        return problems;
    }

    /** True if a first connection (cold, or settled with nothing cached) was won by a module expected for it. */
    public boolean firstModuleOk(TransferResult r) {
        return firstModuleOk(r.module());
    }

    /** True if {@code module} may win a first connection: the expected one, or {@link #firstMayBe}. */
    public boolean firstModuleOk(String module) {
        return module.equals(expectedModule) || module.equals(firstMayBe);
    }

    /** Differences worth reporting that are not failures: a cold connection won by another module. */
    public List<String> notes() {
        List<String> notes = new ArrayList<>();
        cold.filter(c -> c.ok() && !c.module().equals(expectedModule))
                .ifPresent(c -> notes.add(source + " -> " + target + ": cold connection won by " + c.module()
                        + " (settled: " + expectedModule + ")"));
        return notes;
    }

    private void check(List<String> problems, String what, TransferResult r, boolean moduleMatters) {
        if (!r.ok()) {
            problems.add(what + " failed after " + r.elapsedMillis() + " ms: " + r.error());
        } else if (!r.servedBy().equals(targetNode)) {
            problems.add(what + " reached node " + r.servedBy() + " instead of " + targetNode);
        } else if (moduleMatters && !r.module().equals(expectedModule)) {
            problems.add(what + ": expected " + expectedModule + " (" + expectedBecause + "), got " + r.module());
        }
    }
}
