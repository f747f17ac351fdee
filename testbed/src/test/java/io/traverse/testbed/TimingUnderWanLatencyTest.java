package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hub link's timing rules where timing matters. Site {@code far} sits 300 ms
 * from everything else one way (a 600 ms round trip, the paper's worst is 590 ms), behind a NAT
 * that drops what comes in; site {@code near} has no latency. Over a TCP hub link (keepalive every
 * 2 s, dead after 3 silent intervals) and over a long-poll session (polls held 2 s, answers
 * awaited 3 s), the far node's link must hold through several intervals without a false death or
 * a second link, and carry relayed connections both ways with their data checked (256 KiB, SHA-256,
 * half-close; slow start across 600 ms makes each MiB cost seconds). The nodes run the relays alone.
 */
@Timeout(120)
class TimingUnderWanLatencyTest {
    private static final Logger log = LoggerFactory.getLogger(TimingUnderWanLatencyTest.class);
    private static final String TOKEN = "testbed-timing-token";
    private static final int HUB_PORT = 17000;
    private static final long BYTES = 256L << 10;
    private static final Duration ONE_WAY = Duration.ofMillis(300);
    /** Four keepalive intervals: one more than a link may stay silent. */
    private static final Duration HOLD = Duration.ofSeconds(8);

    private static final String RELAYS = "routed,longpoll";

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    @Test
    void aHubLinkAcrossSixHundredMillisecondsHoldsThroughItsKeepalives() throws Exception {
        runFarAndNear(settings -> settings, "routed");
    }

    @Test
    void aLongPollSessionAcrossSixHundredMillisecondsRenewsItsPollsAndCarriesConnections() throws Exception {
        runFarAndNear(
                settings -> settings.set("traverse.http.tunnel", "longpoll")
                        .set("traverse.longpoll.server.timeout", "2s")
                        .set("traverse.longpoll.client.timeout", "3s"),
                "longpoll");
    }

    private void runFarAndNear(java.util.function.UnaryOperator<NodeSettings> farLink, String farOutModule)
            throws Exception {
        Host hubHost = testbed.get()
                .wanLatency(WanLatency.access(Map.of("far", ONE_WAY)))
                .internet()
                .host("hub");
        Site far = testbed.get().site("far", "10.0.5.0/24");
        Site near = testbed.get().site("near", "10.0.6.0/24");
        far.router().firewall(Firewall.dropInbound());
        near.router().firewall(Firewall.dropInbound());
        Host fHost = far.host("f", "10.0.5.2");
        Host nHost = near.host("n", "10.0.6.2");
        String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);
        // The relays alone: the link's timing is under test, not which module wins (both NATs keep ports, so splice
        // could).
        CompletableFuture<RunningNode> farStart = CompletableFuture.supplyAsync(() -> RunningNode.start(
                fHost,
                farLink.apply(
                        NodeSettings.linkedTo(hub, TOKEN).bind(fHost.address()).set("traverse.modules", RELAYS))));
        CompletableFuture<RunningNode> nearStart = CompletableFuture.supplyAsync(() -> RunningNode.start(
                nHost, NodeSettings.linkedTo(hub, TOKEN).bind(nHost.address()).set("traverse.modules", RELAYS)));
        RunningNode f = farStart.join();
        RunningNode n = nearStart.join();

        Thread.sleep(HOLD.toMillis());
        String farLog = f.recentLog();
        assertThat(farLog).as("one link, never lost, in %s", HOLD).containsOnlyOnce("Linked to hub");
        assertThat(farLog)
                .as("no false death")
                .doesNotContain("Lost the link to hub")
                .doesNotContain("No hub link");

        TransferResult out = f.connect(n.address(), BYTES, Duration.ofSeconds(20));
        log.info("From the far site out: {}", out);
        assertThat(out.ok())
                .as(() -> out + "\nF's log:\n" + f.recentLog() + "\nN's log:\n" + n.recentLog())
                .isTrue();
        assertThat(out.module()).isEqualTo(farOutModule);
        assertThat(out.bytes()).isEqualTo(BYTES);
        assertThat(out.servedBy()).isEqualTo(n.nodeId());

        TransferResult in = n.connect(f.address(), BYTES, Duration.ofSeconds(20));
        log.info("Into the far site: {}", in);
        assertThat(in.ok())
                .as(() -> in + "\nF's log:\n" + f.recentLog() + "\nN's log:\n" + n.recentLog())
                .isTrue();
        assertThat(in.module()).isEqualTo("routed");
        assertThat(in.bytes()).isEqualTo(BYTES);
        assertThat(in.servedBy()).isEqualTo(f.nodeId());
        assertThat(f.recentLog()).as("still the one link").containsOnlyOnce("Linked to hub");
    }
}
