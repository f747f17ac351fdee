package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Reach#SSH_ONLY} site in a {@link MultiSiteNetwork} (the paper's Hiroshi): its router lets
 * in only SSH, to the frontend's real OpenSSH sshd, and lets nothing out, so its hub joins the hub
 * network only because the open site's hub links to it through that sshd. The open site's node then
 * reaches the SSH-only node with the direct module alone through the sshd (the sshd on the frontend
 * dials the node), and with every module its first connection may go routed while the SSH login
 * runs, after which the upgrade probe caches direct; a node reached through the tunnel before tries it first. The other way is
 * reverse: the open node dials the SSH-only node back through the same sshd (a REVERSE handshake with
 * in-band end-of-stream). 1 MiB checked by length and SHA-256 at both ends each time.
 */
@Timeout(120)
class SshOnlySiteTest {
    private static final Logger log = LoggerFactory.getLogger(SshOnlySiteTest.class);
    private static final long ONE_MIB = 1L << 20;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    @BeforeEach
    void build() {
        assertThat(SshDaemon.available())
                .as("openssh-server and ssh-keygen (the CI script installs them)")
                .isTrue();
    }

    @Test
    void anOpenSiteReachesAnSshOnlySiteByDirectThroughItsSshdAndIsReachedFromItByReverse() throws Exception {
        MultiSiteNetwork network = MultiSiteNetwork.build(
                testbed.get(),
                List.of(
                        SiteLine.of("open", Reach.OPEN, Reach.OPEN, "10.0.0.0/24"),
                        SiteLine.of("sshonly", Reach.SSH_ONLY, Reach.SSH_ONLY, "10.2.0.0/24")),
                "ssh-site-token");
        network.startNodes(Duration.ofSeconds(40)); // both hubs know both nodes: the link through SSH is up
        RunningNode open = network.node("open");
        RunningNode closed = network.node("sshonly");
        MultiSiteNetwork.SiteMachines sshSite = network.site("sshonly");
        assertThat(network.sshTunnels()).containsOnlyKeys("sshonly");

        TransferResult direct = RunningNode.coldConnect(
                network.site("open").node(),
                network.nodeSettings("open").set("traverse.modules", "direct"),
                closed.address(),
                ONE_MIB,
                Duration.ofSeconds(20));
        log.info("open -> sshonly, direct only: {}", direct);
        assertThat(direct.ok())
                .as(() -> direct + "\nsshonly's log:\n" + closed.recentLog())
                .isTrue();
        assertThat(direct.module()).isEqualTo("direct");
        assertThat(direct.bytes()).isEqualTo(ONE_MIB);
        assertThat(direct.servedBy()).isEqualTo(closed.nodeId());
        assertThat(direct.peer())
                .as("the node was dialled by the sshd on its frontend")
                .startsWith(sshSite.frontend().address().getHostAddress() + ":");

        TransferResult first = open.connect(closed.address(), ONE_MIB, Duration.ofSeconds(20));
        log.info("open -> sshonly, first: {}", first);
        assertThat(first.ok()).as(first::toString).isTrue();
        assertThat(first.module()).isIn("direct", "routed");
        TransferResult settled = first;
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!settled.module().equals("direct") && System.nanoTime() < end) {
            Thread.sleep(200);
            settled = open.connect(closed.address(), ONE_MIB, Duration.ofSeconds(20));
            assertThat(settled.ok()).as(settled::toString).isTrue();
        }
        log.info("open -> sshonly, settled: {}", settled);
        assertThat(settled.module()).as("the upgrade probe cached direct").isEqualTo("direct");
        assertThat(settled.servedBy()).isEqualTo(closed.nodeId());
        // The plain attempt at the node's private address is dropped, costing a stagger each time:
        // a node reached through a tunnel before is tried through it first. With a 5 s stagger the
        // second connection must get through within 2 s.
        RunningNode slow = RunningNode.start(
                network.site("open").node(),
                network.nodeSettings("open").set("traverse.modules", "direct").set("traverse.connect.stagger", "5s"));
        TransferResult viaStagger = slow.connect(closed.address(), 64 * 1024, Duration.ofSeconds(20));
        assertThat(viaStagger.ok()).as(viaStagger::toString).isTrue();
        TransferResult tunnelFirst = slow.connect(closed.address(), 64 * 1024, Duration.ofSeconds(2));
        log.info("open -> sshonly, 5 s stagger: first {}, then {}", viaStagger, tunnelFirst);
        assertThat(tunnelFirst.ok())
                .as(() -> "the tunnel that worked is tried first: " + tunnelFirst)
                .isTrue();
        assertThat(tunnelFirst.module()).isEqualTo("direct");

        // The other way: the open node dials the SSH-only node back through the same sshd (its
        // tunnel rule), so reverse wins; the first connection may go routed while that runs.
        TransferResult backFirst = closed.connect(open.address(), ONE_MIB, Duration.ofSeconds(20));
        log.info("sshonly -> open, first: {}", backFirst);
        assertThat(backFirst.ok()).as(backFirst::toString).isTrue();
        assertThat(backFirst.module()).isIn("reverse", "routed");
        TransferResult back = backFirst;
        long backEnd = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!back.module().equals("reverse") && System.nanoTime() < backEnd) {
            Thread.sleep(200);
            back = closed.connect(open.address(), ONE_MIB, Duration.ofSeconds(20));
            assertThat(back.ok()).as(back::toString).isTrue();
        }
        log.info("sshonly -> open, settled: {}", back);
        assertThat(back.module()).as("dialled back through the sshd").isEqualTo("reverse");
        assertThat(back.servedBy()).isEqualTo(open.nodeId());
        TransferResult reverseOnly = RunningNode.coldConnect(
                sshSite.node(),
                network.nodeSettings("sshonly").set("traverse.modules", "reverse"),
                open.address(),
                ONE_MIB,
                Duration.ofSeconds(20));
        log.info("sshonly -> open, reverse only: {}", reverseOnly);
        assertThat(reverseOnly.ok())
                .as(() -> reverseOnly + "\nopen's log:\n" + open.recentLog())
                .isTrue();
        assertThat(reverseOnly.module()).isEqualTo("reverse");
        assertThat(reverseOnly.bytes()).isEqualTo(ONE_MIB);
        assertThat(reverseOnly.servedBy()).isEqualTo(open.nodeId());
        assertThat(reverseOnly.peer())
                .as("the open node dialled back into its SSH forward's loopback entrance")
                .startsWith("127.0.0.1:");
        assertThat(closed.plainConnect(network.plainService("open"), 1024, Duration.ofSeconds(2))
                        .ok())
                .as("nothing gets out of the SSH-only site")
                .isFalse();
    }
}
