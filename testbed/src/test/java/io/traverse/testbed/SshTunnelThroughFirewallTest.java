package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SSH tunnels (paper §3.2.4) through a real OpenSSH sshd: node T sits in a site whose router drops
 * every new inbound connection except SSH, which it forwards to T's host. Node S on the internet has
 * a {@code traverse.ssh.tunnels} rule for the site's network with the router as gateway. S reaches T
 * with the direct module alone, through the tunnel; the data is checked by length and SHA-256 at
 * both ends, and the end of S's data reaches T as end-of-stream although SSH forwarding does not
 * carry TCP half-close. A node whose known_hosts has another key for the gateway is refused, with
 * the host and the fingerprints in the error.
 */
@Timeout(90)
class SshTunnelThroughFirewallTest {
    private static final Logger log = LoggerFactory.getLogger(SshTunnelThroughFirewallTest.class);
    private static final long FOUR_MIB = 4L << 20;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    @BeforeEach
    void build() {
        assertThat(SshDaemon.available())
                .as("openssh-server and ssh-keygen (the CI script installs them)")
                .isTrue();
    }

    private static NodeSettings directOnly() {
        return NodeSettings.create().set("traverse.modules", "direct").set("traverse.discovery", "false");
    }

    @Test
    void aTargetBehindAFirewallThatLetsOnlySshInIsReachedThroughItsSshd() throws Exception {
        Site site = testbed.get().site("sshsite", "10.0.0.0/24");
        Host targetHost = site.host("t", "10.0.0.2");
        site.router().firewall(Firewall.dropInbound()).forwardPort(SshDaemon.PORT, targetHost, SshDaemon.PORT);
        Host sourceHost = testbed.get().internet().host("s");
        Host strangerHost = testbed.get().internet().host("x");
        SshDaemon sshd = SshDaemon.startOn(targetHost);
        String gateway = site.router().publicAddress().getHostAddress();
        Path known = sshd.knownHostsAs(gateway);
        Path stale = sshd.staleKnownHostsAs(gateway);

        CompletableFuture<RunningNode> target = CompletableFuture.supplyAsync(
                () -> RunningNode.start(targetHost, directOnly().bind(targetHost.address())));
        CompletableFuture<RunningNode> source = CompletableFuture.supplyAsync(() -> RunningNode.start(
                sourceHost,
                directOnly()
                        .bind(sourceHost.address())
                        .set("traverse.ssh.tunnels", sshd.tunnelRule("10.0.0.0/24", gateway, known))));
        CompletableFuture<RunningNode> stranger = CompletableFuture.supplyAsync(() -> RunningNode.start(
                strangerHost,
                directOnly()
                        .bind(strangerHost.address())
                        .set("traverse.ssh.tunnels", sshd.tunnelRule("10.0.0.0/24", gateway, stale))));
        RunningNode t = target.join();
        RunningNode s = source.join();
        RunningNode x = stranger.join();

        for (int i = 0; i < 2; i++) { // the second connection reuses the SSH session and its forward
            TransferResult result = s.connect(t.address(), FOUR_MIB, Duration.ofSeconds(15));
            log.info("S to T through T's sshd: {}", result);
            assertThat(result.ok())
                    .as(() -> result + "\nS's log:\n" + s.recentLog() + "\nT's log:\n" + t.recentLog()
                            + "\nsshd's log:\n" + sshd.recentLog())
                    .isTrue();
            assertThat(result.module()).isEqualTo("direct");
            assertThat(result.bytes()).isEqualTo(FOUR_MIB);
            assertThat(result.servedBy()).isEqualTo(t.nodeId());
            assertThat(result.peer())
                    .as("T's service was dialled by the sshd on T's own host")
                    .startsWith(targetHost.address().getHostAddress() + ":");
        }
        assertThat(t.servedConnections()).isEqualTo(2);

        TransferResult refused = x.connect(t.address(), 1024, Duration.ofSeconds(5));
        log.info("X with a stale known_hosts: {}", refused);
        assertThat(refused.ok()).isFalse();
        // Its plain attempt failed as well: without the tunnel there is no way in.
        assertThat(refused.error()).contains(targetHost.address().getHostAddress() + ":");
        assertThat(refused.error())
                .contains("host key mismatch for " + gateway)
                .contains(sshd.hostKeyFingerprint())
                .contains(stale.toString());
        assertThat(t.servedConnections()).isEqualTo(2);
    }
}
