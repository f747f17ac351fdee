package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A hub-to-hub link through SSH (paper §3.2.4, the testbed's SSH-only site): site B's router drops
 * every new inbound connection except SSH, forwarded to B's frontend, which runs a real OpenSSH sshd
 * and hub H2 (no peers: it dials nobody). Hub H1 on the internet advertises no address (nobody can
 * dial it) and has H2's private address as its peer with a tunnel rule for B's network through the
 * router's SSH port. So the only link between the two hubs is the one H1 makes through B's sshd. Node
 * NB inside B (linked to H2) is then reached from node NA on the internet (linked to H1) by the routed
 * module, whose data crosses that link: 4 MiB checked by length and SHA-256 at both ends.
 */
@Timeout(120)
class HubLinkThroughSshTest {
    private static final Logger log = LoggerFactory.getLogger(HubLinkThroughSshTest.class);
    private static final String TOKEN = "testbed-ssh-hub-token";
    private static final int HUB_PORT = 17000;
    private static final long FOUR_MIB = 4L << 20;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    @BeforeEach
    void build() {
        assertThat(SshDaemon.available())
                .as("openssh-server and ssh-keygen (the CI script installs them)")
                .isTrue();
    }

    private static NodeSettings linked(String hub) {
        return NodeSettings.linkedTo(hub, TOKEN).set("traverse.modules", "routed");
    }

    @Test
    void aSiteWhoseHubOnlySshReachesJoinsTheHubNetworkAndItsNodeIsReachable() throws Exception {
        Site site = testbed.get().site("sshhub", "10.0.1.0/24");
        Host frontend = site.host("fe", "10.0.1.2");
        Host inside = site.host("n", "10.0.1.3");
        site.router().firewall(Firewall.dropInbound()).forwardPort(SshDaemon.PORT, frontend, SshDaemon.PORT);
        Host h1Host = testbed.get().internet().host("h1");
        Host outside = testbed.get().internet().host("a");
        SshDaemon sshd = SshDaemon.startOn(frontend);
        String gateway = site.router().publicAddress().getHostAddress();
        Path known = sshd.knownHostsAs(gateway);

        String h2Address = frontend.address().getHostAddress() + ":" + HUB_PORT;
        String h2 = HubAgent.startOn(frontend, HUB_PORT, TOKEN, "h2", List.of(h2Address), List.of());
        String h1 = HubAgent.startOn(
                h1Host,
                HUB_PORT,
                TOKEN,
                "h1",
                List.of(),
                List.of(h2Address),
                List.of(sshd.tunnelRule("10.0.1.0/24", gateway, known)));

        CompletableFuture<RunningNode> nb = CompletableFuture.supplyAsync(
                () -> RunningNode.start(inside, linked(h2).bind(inside.address())));
        CompletableFuture<RunningNode> na = CompletableFuture.supplyAsync(
                () -> RunningNode.start(outside, linked(h1).bind(outside.address())));
        RunningNode b = nb.join();
        RunningNode a = na.join();

        String network = a.awaitNetwork(2, 2, Duration.ofSeconds(20));
        assertThat(network)
                .as(() -> network + "\nsshd's log:\n" + sshd.recentLog())
                .startsWith("network ok");
        assertThat(sshd.recentLog()).as("H1 logged in at B's sshd").contains("Accepted publickey for root");

        TransferResult result = a.connect(b.address(), FOUR_MIB, Duration.ofSeconds(15));
        log.info("NA (hub h1) to NB (hub h2, linked through SSH): {}", result);
        assertThat(result.ok())
                .as(() -> result + "\nNA's log:\n" + a.recentLog() + "\nNB's log:\n" + b.recentLog())
                .isTrue();
        assertThat(result.module()).isEqualTo("routed");
        assertThat(result.bytes()).isEqualTo(FOUR_MIB);
        assertThat(result.servedBy()).isEqualTo(b.nodeId());
        assertThat(b.servedConnections()).isEqualTo(1);
    }
}
