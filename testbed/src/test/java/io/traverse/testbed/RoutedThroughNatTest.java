package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routed module through real NAT (paper §3.3.3): nodes S and T sit at two sites, each behind
 * a masquerading router whose firewall silently drops new inbound connections, so neither can
 * dial the other — direct SYNs to T's router vanish, and T's dial-back to S's router would too.
 * Both keep an outbound link to a hub on the internet, which relays their connection.
 */
@Timeout(120)
class RoutedThroughNatTest {
    private static final Logger log = LoggerFactory.getLogger(RoutedThroughNatTest.class);
    private static final String TOKEN = "testbed-routed-token";
    private static final int HUB_PORT = 17000;
    private static final long FOUR_MIB = 4L << 20;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    private static NodeSettings linked(String hub) {
        return NodeSettings.linkedTo(hub, TOKEN).set("traverse.modules", "direct,reverse,routed");
    }

    @Test
    void nodesBehindTwoDroppingNatsAreConnectedThroughTheHub() throws Exception {
        Host hubHost = testbed.get().internet().host("hub");
        Site siteS = testbed.get().site("site-s", "10.0.1.0/24");
        Site siteT = testbed.get().site("site-t", "10.0.2.0/24");
        siteS.router().firewall(Firewall.dropInbound());
        siteT.router().firewall(Firewall.dropInbound());
        Host sourceHost = siteS.host("s", "10.0.1.2");
        Host targetHost = siteT.host("t", "10.0.2.2");
        String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);

        CompletableFuture<RunningNode> target = CompletableFuture.supplyAsync(() -> RunningNode.start(
                targetHost,
                linked(hub).bind(targetHost.address()).external(siteT.router().publicAddress(), 17777)));
        CompletableFuture<RunningNode> source = CompletableFuture.supplyAsync(() -> RunningNode.start(
                sourceHost,
                linked(hub).bind(sourceHost.address()).external(siteS.router().publicAddress(), 17778)));
        RunningNode t = target.join();
        RunningNode s = source.join();

        TransferResult result = s.connect(t.address(), FOUR_MIB, Duration.ofSeconds(10));
        log.info("S to T, both behind dropping NATs: {}", result);
        assertThat(result.ok())
                .as(() -> result + "\nS's log:\n" + s.recentLog() + "\nT's log:\n" + t.recentLog())
                .isTrue();
        assertThat(result.module()).isEqualTo("routed");
        assertThat(result.bytes()).isEqualTo(FOUR_MIB);
        assertThat(result.servedBy()).isEqualTo(t.nodeId());
        assertThat(result.setupMillis())
                .as("direct alone would wait for its 10 s timeout")
                .isLessThan(5_000);
        assertThat(t.servedConnections()).isEqualTo(1);
    }
}
