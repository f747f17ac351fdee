package io.traverse.bench.matrix;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.testbed.HostCapabilities;
import io.traverse.testbed.MultiSiteNetwork;
import io.traverse.testbed.Testbed;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The everyday network of NATs ({@link EverydaySites}) with WAN latency (access latencies of 1-20 ms,
 * round trips of 8-64 ms through the testbed's user-space switch), scaled down for CI: every
 * ordered pair cold and settled, and the module that wins. Where a kernel socket is possible (8 of
 * the 30 pairs) it must be the cached choice, even though a relay answers a first connection
 * sooner; a first connection that a relay won must have the kernel module cached soon after. The
 * namespaces, the switch and every JVM are gone afterwards.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class EverydayWanMatrixTest {
    private static final Logger log = LoggerFactory.getLogger(EverydayWanMatrixTest.class);

    private Testbed testbed;
    private MatrixResult result;
    private String report;

    @BeforeAll
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void runTheMatrix() throws Exception {
        HostCapabilities host = HostCapabilities.probe();
        Assumptions.assumeTrue(
                host.isRoot(),
                () -> "Skipped: " + host.problem().orElse("not root") + " (CI runs these tests as root)");
        MatrixOptions options = MatrixOptions.full()
                .on("everyday", "wan")
                .scaled(1 << 20, 1 << 20, 5, 3, 2)
                .plainTimeout(Duration.ofSeconds(1));
        testbed = Testbed.create().wanLatency(options.wanLatency());
        MultiSiteNetwork network = MultiSiteNetwork.build(testbed, options.siteLines(), "wan-matrix-token");
        network.startNodes(Duration.ofSeconds(90));
        result = ConnectionMatrix.run(network, options);
        report = MatrixReport.markdown(result);
        log.info("Everyday sites with WAN latency:\n{}", report);
    }

    @AfterAll
    void removeEverything() {
        if (testbed != null) {
            MatrixTeardown.closeAndCheck(testbed);
        }
    }

    @Test
    void everyPairConnectsColdAndSettledWithItsDataVerified() {
        assertThat(result.pairs()).hasSize(30);
        for (PairResult p : result.pairs()) {
            assertThat(List.of(p.cold().orElseThrow(), p.first(), p.cached(), p.throughput()))
                    .as(() -> p.source() + " -> " + p.target() + " connects cold and settled\n" + report)
                    .allSatisfy(r -> {
                        assertThat(r.ok()).as(r::toString).isTrue();
                        assertThat(r.servedBy()).isEqualTo(p.targetNode());
                    });
            assertThat(p.plainWorked())
                    .as(() -> "plain socket " + p.source() + " -> " + p.target() + "\n" + report)
                    .isEqualTo(p.plainExpected());
        }
    }

    @Test
    void everyPairWhoseTopologyAllowsAKernelSocketHasOneCached() {
        Map<String, Long> cached = new TreeMap<>();
        for (PairResult p : result.pairs()) {
            String pair = p.source() + " -> " + p.target() + " (" + p.expectedBecause() + ")\n" + report;
            assertThat(p.cached().module()).as("cached connection " + pair).isEqualTo(p.expectedModule());
            assertThat(p.throughput().module()).as("large transfer " + pair).isEqualTo(p.expectedModule());
            assertThat(p.first().module()).as("first connection " + pair).matches(p::firstModuleOk);
            cached.merge(p.cached().module(), 1L, Long::sum);
        }
        assertThat(cached)
                .as(report)
                .containsEntry("direct", 3L)
                .containsEntry("reverse", 3L)
                .containsEntry("splice", 2L)
                .containsEntry("routed", 22L);
    }

    @Test
    void aRelayedFirstConnectionHasTheKernelModuleCachedSoonAfter() {
        for (PairResult p : result.pairs()) {
            if (!p.first().module().equals(p.expectedModule())) {
                assertThat(p.upgradeMillis())
                        .as(() -> p.source() + " -> " + p.target() + ": first "
                                + p.first().module() + ", expected " + p.expectedModule()
                                + " to be cached within 10 s\n" + report)
                        .isPresent();
            }
        }
    }
}
