package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first connection of a fresh JVM, through real NAT: an application behind a masquerading
 * router starts its node and connects at once (as a connection pool at start-up or a command-line
 * tool does), before its hub link is up, to a target that only the hubs can reach — both sites'
 * routers drop new inbound connections, so neither direct nor a dial-back can get through. The
 * splice and routed attempts wait for the link within the connect's deadline; every one of 12
 * fresh JVMs must get through, with the data checked end to end. Both NATs keep ports, so splice
 * mostly wins (its head start over routed is kept while it waits for the link); a cold JVM whose
 * splice is slower than the stagger gets routed, which is as good an answer for a first connection.
 */
@Timeout(300)
class ColdStartThroughNatTest {
    private static final Logger log = LoggerFactory.getLogger(ColdStartThroughNatTest.class);
    private static final String TOKEN = "testbed-cold-token";
    private static final int HUB_PORT = 17000;
    /** Twelve, not 20: two at once take about 4.7 s of a CI run that must stay within 30 minutes. */
    private static final int FRESH_JVMS = 12;
    /** Two at once: a JVM start takes most of a core for a moment on these 2-core machines. */
    private static final int AT_ONCE = 2;

    private static final long BYTES = 256L << 10;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    @Test
    void freshJvmsBehindNatConnectAtStartToATargetOnlyTheHubsReach() throws Exception {
        Host hubHost = testbed.get().internet().host("hub");
        Site siteS = testbed.get().site("site-s", "10.0.1.0/24");
        Site siteT = testbed.get().site("site-t", "10.0.2.0/24");
        siteS.router().firewall(Firewall.dropInbound());
        siteT.router().firewall(Firewall.dropInbound());
        Host sourceHost = siteS.host("s", "10.0.1.2");
        Host targetHost = siteT.host("t", "10.0.2.2");
        String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);
        RunningNode target =
                RunningNode.start(targetHost, NodeSettings.linkedTo(hub, TOKEN).bind(targetHost.address()));

        // The source as a user has it: every interface, the default module chain; only hub and token set.
        NodeSettings fresh = NodeSettings.linkedTo(hub, TOKEN).logLevel("warn");
        ExecutorService jvms = Executors.newFixedThreadPool(AT_ONCE);
        List<Future<TransferResult>> runs = new ArrayList<>();
        try {
            for (int i = 0; i < FRESH_JVMS; i++) {
                runs.add(jvms.submit(() ->
                        RunningNode.coldConnect(sourceHost, fresh, target.address(), BYTES, Duration.ofSeconds(15))));
            }
            List<TransferResult> results = new ArrayList<>();
            for (Future<TransferResult> run : runs) {
                results.add(run.get(120, TimeUnit.SECONDS));
            }
            List<TransferResult> failed = results.stream().filter(r -> !r.ok()).toList();
            double[] setups = results.stream()
                    .filter(TransferResult::ok)
                    .mapToDouble(TransferResult::setupMillis)
                    .sorted()
                    .toArray();
            log.info(
                    "{} fresh JVMs connected at start: {} ok, setup ms min {} median {} max {}",
                    results.size(),
                    setups.length,
                    setups.length > 0 ? setups[0] : -1,
                    setups.length > 0 ? setups[setups.length / 2] : -1,
                    setups.length > 0 ? setups[setups.length - 1] : -1);
            assertThat(failed)
                    .as(() -> "failed first connections:\n" + failed + "\ntarget's log:\n" + target.recentLog())
                    .isEmpty();
            assertThat(results).hasSize(FRESH_JVMS).allSatisfy(r -> {
                assertThat(r.module()).isIn("splice", "routed");
                assertThat(r.bytes()).isEqualTo(BYTES);
                assertThat(r.servedBy()).isEqualTo(target.nodeId());
            });
            // Two modules that both end at the target (splice and routed) may both get there for a cold
            // JVM: the target holds each until the source confirms the winner, so the service sees
            // exactly one connection per JVM; a second look after a while finds no late empty one.
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(target.servedConnections()).isGreaterThanOrEqualTo(FRESH_JVMS));
            Thread.sleep(1_000);
            assertThat(target.servedConnections())
                    .as("connections the target's service saw")
                    .isEqualTo(FRESH_JVMS);
        } finally {
            jvms.shutdownNow();
        }
    }
}
