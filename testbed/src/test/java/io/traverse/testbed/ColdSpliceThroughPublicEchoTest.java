package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cold JVM's first connection between two sites whose own hubs see their nodes only at private
 * addresses (the matrix's Rockstar and Desktop): a fresh node connects the moment it is up, and must
 * splice as a settled one does. Its public side comes from a public hub's echo, looked for when its
 * hub link comes up; the firewalled site's own hub also advertises a public address, which drops the
 * echo (a firewall in front of it) and is listed first, being nearest. The search used to ask the
 * candidates in turn, so that hub's one-second timeout came before the public hub's answer, and the
 * splice attempt, finding no public endpoint yet, gave way to routed at once: every cold connection
 * from the firewalled site to the NAT'd one was relayed (4 of 4 matrix runs, 410-774 ms). Now the
 * candidates are asked at once and a splice waits for a search under way within its deadline.
 */
@Timeout(300)
class ColdSpliceThroughPublicEchoTest {
    private static final Logger log = LoggerFactory.getLogger(ColdSpliceThroughPublicEchoTest.class);
    private static final long BYTES = 256L << 10;
    private static final int COLD_FROM_FIREWALLED = 4;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    @Test
    void aFreshNodeSplicesItsFirstConnectionWhenOnlyAPublicHubSeesItsPublicSide() throws Exception {
        MultiSiteNetwork network = MultiSiteNetwork.build(
                testbed.get(),
                List.of(
                        SiteLine.of("public", Reach.OPEN, Reach.OPEN, "10.0.0.0/24"),
                        SiteLine.of("firewalled", Reach.FIREWALLED, Reach.FIREWALLED, "10.1.0.0/24"),
                        SiteLine.of("home", Reach.NAT, Reach.ON_FRONTEND, "192.168.1.0/24")),
                "cold-splice-token");
        network.startNodes(Duration.ofSeconds(60));
        RunningNode firewalled = network.node("firewalled");
        RunningNode home = network.node("home");
        // Both ways are spliced once settled (the upgrade probe and the cache); a cold JVM's way is the question here.
        assertThat(ExpectedPath.expected(
                                network.site("firewalled").line(),
                                network.site("home").line())
                        .module())
                .isEqualTo("splice");

        List<TransferResult> fromFirewalled = new ArrayList<>();
        List<TransferResult> fromHome = new ArrayList<>();
        for (int i = 0; i < COLD_FROM_FIREWALLED; i++) {
            fromFirewalled.add(cold(network, "firewalled", home));
            if (i % 2 == 0) {
                fromHome.add(cold(network, "home", firewalled));
            }
        }
        for (TransferResult r : concat(fromFirewalled, fromHome)) {
            assertThat(r.ok()).as(r::toString).isTrue();
            assertThat(r.bytes()).isEqualTo(BYTES);
            assertThat(r.module()).isIn("splice", "routed");
        }
        assertThat(fromFirewalled)
                .as("cold firewalled -> home")
                .allSatisfy(r -> assertThat(r.servedBy()).isEqualTo(home.nodeId()));
        assertThat(fromHome)
                .as("cold home -> firewalled")
                .allSatisfy(r -> assertThat(r.servedBy()).isEqualTo(firewalled.nodeId()));
        // One may lose to routed on a very busy machine (its splice starts two staggers after direct); before the fix
        // none spliced.
        assertThat(fromFirewalled.stream()
                        .filter(r -> r.module().equals("splice"))
                        .count())
                .as("cold firewalled -> home connections spliced: %s", fromFirewalled)
                .isGreaterThanOrEqualTo(COLD_FROM_FIREWALLED - 1);
        assertThat(fromHome.stream().filter(r -> r.module().equals("splice")).count())
                .as("cold home -> firewalled connections spliced: %s", fromHome)
                .isGreaterThanOrEqualTo(fromHome.size() - 1);
    }

    /** A fresh JVM at {@code site} connecting at once to {@code target}; its module attempts and echoes logged at debug. */
    private static TransferResult cold(MultiSiteNetwork network, String site, RunningNode target) {
        AtomicReference<String> agentLog = new AtomicReference<>("");
        NodeSettings settings =
                network.nodeSettings(site).logLevel("debug").jvmOption("-Dorg.slf4j.simpleLogger.log.io.netty=info");
        TransferResult r = RunningNode.coldConnect(
                network.site(site).node(), settings, target.address(), BYTES, Duration.ofSeconds(15), agentLog::set);
        String attempts = agentLog.get()
                .lines()
                .filter(l -> l.contains("ModuleRacer") || l.contains("SpliceEndpoints") || l.contains("HubLink -"))
                .reduce("", (a, b) -> a + "\n  " + b);
        log.info("cold {} -> {}: {} (the cold JVM's module attempts and echoes:{})", site, target.host(), r, attempts);
        return r;
    }

    private static List<TransferResult> concat(List<TransferResult> a, List<TransferResult> b) {
        List<TransferResult> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
