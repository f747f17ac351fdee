package io.traverse.bench.matrix;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.testbed.HostCapabilities;
import io.traverse.testbed.MultiSiteNetwork;
import io.traverse.testbed.SiteHttpProxy;
import io.traverse.testbed.Testbed;
import java.time.Duration;
import java.util.List;
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
 * The paper's six sites (Table 2) and a seventh whose only way out is a real HTTP proxy allowing
 * CONNECT (not in the paper), on real namespaces, NAT and firewalls, scaled down for CI:
 * one matrix run of all 42 ordered pairs (cold JVMs and settled nodes, 1 MiB transfers) shared by
 * the assertions below — the paper's 30 pairs asserted as before, the 12 with the proxy-only site
 * on their own — and every namespace (with its interfaces and nft tables) and every process gone
 * afterwards, also when something failed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SevenSiteMatrixTest {
    private static final Logger log = LoggerFactory.getLogger(SevenSiteMatrixTest.class);
    private static final String PROXY_ONLY = PaperSites.PROXY_ONLY.name();

    private Testbed testbed;
    private MultiSiteNetwork network;
    private MatrixResult result;
    private String report;

    @BeforeAll
    @Timeout(value = 360, unit = TimeUnit.SECONDS)
    void runTheMatrix() throws Exception {
        HostCapabilities host = HostCapabilities.probe();
        Assumptions.assumeTrue(
                host.isRoot(),
                () -> "Skipped: " + host.problem().orElse("not root") + " (CI runs these tests as root)");
        assertThat(host.missingTools()).as("tools the namespace testbed needs").isEmpty();
        testbed = Testbed.create();
        network = MultiSiteNetwork.build(testbed, PaperSites.TABLE_2_AND_PROXY_ONLY, "matrix-test-token");
        network.startNodes(Duration.ofSeconds(90));
        // Cold JVMs one at a time: three starting at once on two cores slow each other's hub links
        // and dial-backs so much that a cold race's order is the machine's, not the topology's.
        MatrixOptions options =
                MatrixOptions.full().scaled(1 << 20, 1 << 20, 50, 3, 2).plainTimeout(Duration.ofSeconds(1));
        result = ConnectionMatrix.run(network, options);
        report = MatrixReport.markdown(result);
        log.info("Seven-site matrix (the paper's six and proxy-only):\n{}", report);
    }

    @AfterAll
    void removeEverything() {
        if (testbed != null) {
            MatrixTeardown.closeAndCheck(testbed);
        }
    }

    private List<PairResult> paperPairs() {
        return result.pairs().stream()
                .filter(p -> PaperSites.inThePaper(p.source()) && PaperSites.inThePaper(p.target()))
                .toList();
    }

    private List<PairResult> proxyOnlyPairs() {
        return result.pairs().stream()
                .filter(p -> p.source().equals(PROXY_ONLY) || p.target().equals(PROXY_ONLY))
                .toList();
    }

    @Test
    void everyPairConnectsColdAndSettledWithItsDataVerified() {
        assertThat(result.pairs()).hasSize(42);
        assertThat(paperPairs()).hasSize(30);
        assertThat(proxyOnlyPairs()).hasSize(12);
        for (PairResult p : result.pairs()) {
            assertThat(p.cold())
                    .as("cold connection %s -> %s", p.source(), p.target())
                    .isPresent();
            assertThat(List.of(p.cold().get(), p.first(), p.cached(), p.throughput()))
                    .as(() -> p.source() + " -> " + p.target() + " connects cold and settled\n" + report)
                    .allSatisfy(r -> {
                        assertThat(r.ok()).as(r::toString).isTrue();
                        assertThat(r.servedBy()).isEqualTo(p.targetNode());
                    });
            assertThat(p.rtt().ok()).as(() -> p.rtt() + "\n" + report).isTrue();
        }
    }

    @Test
    void plainSocketsFailExactlyWhereTheTopologyForbids() {
        for (PairResult p : result.pairs()) {
            assertThat(p.plainWorked())
                    .as(() -> "plain socket " + p.source() + " -> " + p.target() + ": "
                            + (p.plainWorked() ? "worked" : p.plainFailure()) + "\n" + report)
                    .isEqualTo(p.plainExpected());
        }
        assertThat(paperPairs()).filteredOn(PairResult::plainWorked).hasSize(6);
        assertThat(proxyOnlyPairs())
                .as("nothing leaves or enters the proxy-only site but through its proxy")
                .noneMatch(PairResult::plainWorked);
        // Hiroshi's node: no plain socket reaches it, but four sites' nodes reach it by direct through its sshd.
        assertThat(result.pairs())
                .filteredOn(
                        p -> p.target().equals("hiroshi") && p.cached().module().equals("direct"))
                .extracting(PairResult::source)
                .containsExactlyInAnyOrder("das3-v", "das3-d", "rockstar", "desktop");
        // ... and its node reaches those four by reverse: they dial it back through the same sshd.
        assertThat(result.pairs())
                .filteredOn(
                        p -> p.source().equals("hiroshi") && p.cached().module().equals("reverse"))
                .extracting(PairResult::target)
                .containsExactlyInAnyOrder("das3-v", "das3-d", "rockstar", "desktop");
    }

    @Test
    void eachPairIsWonByTheModuleTheTopologyPredicts() {
        int coldFallbacks = 0;
        int settledFallbacks = 0;
        for (PairResult p : result.pairs()) {
            String pair = p.source() + " -> " + p.target() + " (" + p.expectedBecause() + ")\n" + report;
            // Only splice's rule lets a first connection be won by another module: routed, which starts beside splice
            // at
            // once (nodes log in at their SSH gateways at start, and a first dial-back through a tunnel starts beside
            // the
            // dropped plain SYN). A cold JVM's dial-back still races routed, a stagger later:
            // with the two cores loaded by other work routed got there first (hiroshi -> das3-v once, beside another
            // matrix run; none in the runs on a machine of its own, docs/benchmarks.md), so one such pair is allowed,
            // not as a rule: the report lists it, and the settled nodes' first connections must be exact (below).
            String cold = p.cold().orElseThrow().module();
            if (!p.firstModuleOk(cold) && cold.equals("routed")) {
                coldFallbacks++;
            } else {
                assertThat(cold)
                        .as("cold connection (a fresh JVM connecting at once) " + pair)
                        .matches(
                                p::firstModuleOk,
                                "is " + p.expectedModule() + (p.firstMayBe().isEmpty() ? "" : " or " + p.firstMayBe()));
            }
            String first = p.first().module();
            if (!p.firstModuleOk(first)
                    && first.equals("routed")
                    && p.expectedBecause().contains("sshd")) {
                // A dial-back through an sshd asks over the hub links, which run TLS since issue 25 and answer later:
                // routed beat it in one of two runs (hiroshi -> desktop). Allowed once, as for cold connections;
                // its cached, round-trip and transfer connections below must still be the predicted module.
                settledFallbacks++;
            } else {
                assertThat(first)
                        .as("first connection " + pair)
                        .matches(
                                p::firstModuleOk,
                                "is " + p.expectedModule() + (p.firstMayBe().isEmpty() ? "" : " or " + p.firstMayBe()));
            }
            assertThat(p.cached().module()).as("cached connection " + pair).isEqualTo(p.expectedModule());
            assertThat(p.rtt().module()).as("round trips " + pair).isEqualTo(p.expectedModule());
            assertThat(p.throughput().module()).as("large transfer " + pair).isEqualTo(p.expectedModule());
        }
        assertThat(coldFallbacks)
                .as("cold connections won by routed where another module was predicted\n" + report)
                .isLessThanOrEqualTo(1);
        assertThat(settledFallbacks)
                .as("settled first connections won by routed where a dial-back through an sshd was predicted\n"
                        + report)
                .isLessThanOrEqualTo(1);
    }

    @Test
    void onlySplicesFirstConnectionMayBeWonByAnotherModuleTheRelayBesideIt() {
        assertThat(result.pairs())
                .allSatisfy(p -> assertThat(p.firstMayBe())
                        .as(p.source() + " -> " + p.target())
                        .isEqualTo(p.expectedModule().equals("splice") ? "routed" : ""));
    }

    @Test
    void rockstarAndTheDesktopSpliceOnceCachedThroughAPublicHubsEcho() {
        // Both nodes' own hubs see them at private addresses; a DAS-3 hub echoes their public sides.
        assertThat(result.pairs())
                .filteredOn(p -> p.cached().module().equals("splice"))
                .extracting(p -> p.source() + ">" + p.target())
                .containsExactlyInAnyOrder("rockstar>desktop", "desktop>rockstar");
        assertThat(result.pairs())
                .filteredOn(p -> p.expectedModule().equals("splice"))
                .allSatisfy(p -> assertThat(p.throughput().module())
                        .as(p.source() + " -> " + p.target())
                        .isEqualTo("splice"));
    }

    @Test
    void theProxyOnlySiteReachesAndIsReachedByEverySiteRoutedThroughItsProxy() {
        assertThat(proxyOnlyPairs()).as(report).hasSize(12).allSatisfy(p -> {
            String pair = p.source() + " -> " + p.target();
            assertThat(p.problems()).as(pair).isEmpty();
            assertThat(List.of(p.cold().orElseThrow(), p.first(), p.cached(), p.throughput()))
                    .as(pair)
                    .allSatisfy(r -> assertThat(r.module()).as(r::toString).isEqualTo("routed"));
            assertThat(p.rtt().module()).as(pair).isEqualTo("routed");
        });
        SiteHttpProxy proxy = network.httpProxy(PROXY_ONLY).orElseThrow();
        // The settled node's hub link and data link, and a hub link from each of the six cold JVMs there.
        assertThat(proxy.connectRequests())
                .as("CONNECT requests in the proxy's log:\n%s", proxy.log())
                .isGreaterThanOrEqualTo(8);
    }
}
