package io.traverse.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The scaled-down churn run of the hub load harness, as CI runs it: about 2,000 relayed connections through one
 * hub at a slow pace (4 KiB every 2 s), 1,000 of them churning (mean lifetime 20 s) in one client
 * JVM and 1,000 long-lived ones in another that is SIGKILLed at once half-way. Every surviving
 * stream must verify (length and SHA-256 after half-close): no byte lost, none reordered, no reset,
 * no other failure; the hub must drop the dead JVM's nodes and the server close its connections;
 * the hub's heap after a full GC stays small (a few hundred bytes per relayed connection). The full
 * figures are printed (bench/run-load.sh --mode churn runs the same at any size).
 */
class HubChurnTest {
    private static final long HEAP_BOUND = 64L * 1024 * 1024;

    @Test
    @Timeout(value = 240)
    void survivorsOfASigkilledThousandLoseNothing() throws Exception {
        LoadOptions o = LoadOptions.parse(
                "--mode",
                "churn",
                "--clients",
                "1",
                "--nodes",
                "10",
                "--connections",
                "1000",
                "--lifetime-ms",
                "20000",
                "--burst",
                "1000",
                "--burst-nodes",
                "10",
                "--interval-ms",
                "2000",
                "--ramp-seconds",
                "10",
                "--seconds",
                "20",
                "--read-timeout-ms",
                "30000",
                "--hub-heap",
                "256m",
                "--client-heap",
                "512m",
                "--progress-seconds",
                "10",
                "--deadline-seconds",
                "200");
        long started = System.nanoTime();
        LoadResult r = LoadRun.run(o, System.out);
        System.out.println(LoadReport.summary(r));
        assertThat(r.why()).as("faults of the run").isEmpty();
        assertThat(r.held()).as("connections held before the kill").isGreaterThanOrEqualTo(1900);
        assertThat(r.verified()).as("surviving streams verified").isGreaterThan(1000);
        assertThat(r.lostBytes()).as("bytes lost on survivors").isZero();
        assertThat(r.reordered()).as("streams reordered on survivors").isZero();
        assertThat(r.resets()).as("resets on survivors").isZero();
        assertThat(r.otherFailures()).as("other failures on survivors").isZero();
        assertThat(r.hubReclaimSeconds())
                .as("seconds until the hub dropped the killed JVM's nodes")
                .isBetween(0.0, 15.0);
        assertThat(r.serverReclaimSeconds())
                .as("seconds until the server closed the killed JVM's connections")
                .isBetween(0.0, 40.0);
        assertThat(r.hubHeapLoaded())
                .as("hub heap after GC with 2,000 connections")
                .isLessThan(HEAP_BOUND);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMinutes(3));
    }
}
