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
 * The reverse module through real NAT (paper §3.3.3): node T sits in a site behind a masquerading
 * router whose firewall silently drops new inbound connections; T advertises the router's public
 * address (as a node configured with its external address would), so a direct attempt sends SYNs
 * that vanish. Node S is on the internet. Both are linked to a hub on the internet. S's connection
 * to T must be made by reverse — T dials S — long before the direct attempt's 10 s timeout.
 */
@Timeout(120)
class ReverseThroughNatTest {
    private static final Logger log = LoggerFactory.getLogger(ReverseThroughNatTest.class);
    private static final String TOKEN = "testbed-reverse-token";
    private static final int HUB_PORT = 17000;
    private static final long FOUR_MIB = 4L << 20;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    private static NodeSettings linked(String hub) {
        return NodeSettings.linkedTo(hub, TOKEN).set("traverse.modules", "direct,reverse");
    }

    @Test
    void aNodeBehindADroppingNatIsReachedByDiallingBack() throws Exception {
        Host hubHost = testbed.get().internet().host("hub");
        Host sourceHost = testbed.get().internet().host("s");
        Site site = testbed.get().site("site", "10.0.0.0/24");
        site.router().firewall(Firewall.dropInbound());
        Host targetHost = site.host("t", "10.0.0.2");
        String hub = HubAgent.startOn(hubHost, HUB_PORT, TOKEN);

        CompletableFuture<RunningNode> target = CompletableFuture.supplyAsync(() -> RunningNode.start(
                targetHost,
                linked(hub).bind(targetHost.address()).external(site.router().publicAddress(), 17777)));
        CompletableFuture<RunningNode> source = CompletableFuture.supplyAsync(
                () -> RunningNode.start(sourceHost, linked(hub).bind(sourceHost.address())));
        RunningNode t = target.join();
        RunningNode s = source.join();

        TransferResult result = s.connect(t.address(), FOUR_MIB, Duration.ofSeconds(10));
        log.info("S to T behind a dropping NAT: {}", result);
        assertThat(result.ok())
                .as(() -> result + "\nS's log:\n" + s.recentLog() + "\nT's log:\n" + t.recentLog())
                .isTrue();
        assertThat(result.module()).isEqualTo("reverse");
        assertThat(result.bytes()).isEqualTo(FOUR_MIB);
        assertThat(result.servedBy()).isEqualTo(t.nodeId());
        assertThat(result.peer())
                .as("T's service saw S's own public address: T dialled it")
                .startsWith(sourceHost.address().getHostAddress() + ":");
        assertThat(result.setupMillis())
                .as("direct alone would wait for its 10 s timeout")
                .isLessThan(5_000);
        assertThat(t.servedConnections()).isEqualTo(1);
    }
}
