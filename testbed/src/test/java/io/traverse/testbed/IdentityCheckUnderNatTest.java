package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The identity check under real NAT (paper §2.2, §2.4, §3.2.2). Two sites use the same private
 * network 10.0.0.0/24 behind masquerading routers on the internet (198.18.0.0/15). Node B sits at
 * 10.0.0.2:7000 in site 2; node C sits at exactly the same address and port in site 1, next to
 * node A. B's virtual address lists its private address first, and since A shares that subnet
 * the address order tries it first: the connection lands on C, which must answer WRONG_NODE so
 * that A moves on. Whether A then reaches B depends on site 2's router.
 */
@Timeout(90)
class IdentityCheckUnderNatTest {
    private static final Logger log = LoggerFactory.getLogger(IdentityCheckUnderNatTest.class);
    private static final int LISTENING_PORT = 7000;
    private static final int FORWARDED_PORT = 17000;
    private static final long FOUR_MIB = 4L << 20;

    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    private Site site1;
    private Site site2;
    private Host a;
    private Host b;
    private Host c;

    @BeforeEach
    void build() {
        site1 = testbed.get().site("site1", "10.0.0.0/24");
        site2 = testbed.get().site("site2", "10.0.0.0/24");
        c = site1.host("c", "10.0.0.2");
        a = site1.host("a", "10.0.0.3");
        b = site2.host("b", "10.0.0.2");
    }

    /** A, B and C started side by side; B advertises site 2's public address and forwarded port. */
    private RunningNode[] startNodes() {
        CompletableFuture<RunningNode> nodeB = CompletableFuture.supplyAsync(() -> RunningNode.start(
                b,
                NodeSettings.create()
                        .bind(b.address())
                        .portRange(Integer.toString(LISTENING_PORT))
                        .external(site2.router().publicAddress(), FORWARDED_PORT)));
        CompletableFuture<RunningNode> nodeC = CompletableFuture.supplyAsync(() -> RunningNode.start(
                c, NodeSettings.create().bind(c.address()).portRange(Integer.toString(LISTENING_PORT))));
        CompletableFuture<RunningNode> nodeA = CompletableFuture.supplyAsync(
                () -> RunningNode.start(a, NodeSettings.create().bind(a.address())));
        return new RunningNode[] {nodeA.join(), nodeB.join(), nodeC.join()};
    }

    @Test
    void wrongNodeAtTheSamePrivateAddressIsSkippedAndTheTargetReachedThroughThePortForward() {
        site2.router().forwardPort(FORWARDED_PORT, b, LISTENING_PORT);
        ConnectionCounter arrivalsAtC = ConnectionCounter.install(c.namespace(), LISTENING_PORT);
        RunningNode[] nodes = startNodes();
        RunningNode nodeA = nodes[0];
        RunningNode nodeB = nodes[1];
        RunningNode nodeC = nodes[2];
        assertThat(nodeC.address().node().addresses())
                .as("C has B's private address and port")
                .isEqualTo(nodeB.address().node().addresses())
                .extracting(x -> x.getAddress().getHostAddress() + ":" + x.getPort())
                .containsExactly("10.0.0.2:" + LISTENING_PORT);

        TransferResult result = nodeA.connect(nodeB.address(), FOUR_MIB, Duration.ofSeconds(10));
        log.info("A to B through site 2's port forward: {}", result);

        assertThat(result.ok())
                .as(() -> result + "\nA's log:\n" + nodeA.recentLog())
                .isTrue();
        assertThat(result.module()).isEqualTo("direct");
        assertThat(result.bytes()).isEqualTo(FOUR_MIB);
        assertThat(result.servedBy()).as("node that verified the data").isEqualTo(nodeB.nodeId());
        assertThat(result.peer())
                .as("source B saw: site 1's router after masquerade, through site 2's port forward")
                .startsWith(site1.router().publicAddress().getHostAddress() + ":");
        assertThat(arrivalsAtC.count())
                .as("connection attempts that reached C at 10.0.0.2:7000")
                .isGreaterThanOrEqualTo(1);
        assertThat(nodeC.servedConnections())
                .as("connections C's service accepted")
                .isZero();
        assertThat(nodeB.servedConnections()).isEqualTo(1);

        // Again, now that A has set up one connection to B: same outcome.
        TransferResult again = nodeA.connect(nodeB.address(), 64 * 1024, Duration.ofSeconds(10));
        log.info("A to B once more: {}", again);
        assertThat(again.ok()).as(again::toString).isTrue();
        assertThat(again.servedBy()).isEqualTo(nodeB.nodeId());
        assertThat(nodeC.servedConnections()).isZero();
    }

    @Test
    void firewalledTargetFailsWithinTheTimeoutAndTheWrongNodeIsNeverReturned() {
        site2.router().firewall(Firewall.dropInbound()); // and no port forward
        ConnectionCounter arrivalsAtC = ConnectionCounter.install(c.namespace(), LISTENING_PORT);
        ConnectionCounter arrivalsAtRouter2 =
                ConnectionCounter.install(site2.router().namespace(), FORWARDED_PORT);
        RunningNode[] nodes = startNodes();
        RunningNode nodeA = nodes[0];
        RunningNode nodeB = nodes[1];
        RunningNode nodeC = nodes[2];
        Duration timeout = Duration.ofMillis(2_000);

        TransferResult result = nodeA.connect(nodeB.address(), FOUR_MIB, timeout);
        log.info("A to B behind a dropping firewall: {}", result);

        assertThat(result.ok()).as(result::toString).isFalse();
        assertThat(result.error())
                .as("a clear error: timed out, naming the wrong node met on the way")
                .contains("SocketTimeoutException")
                .contains("timed out")
                .contains("10.0.0.2:" + LISTENING_PORT)
                .contains("reached node " + nodeC.nodeId());
        assertThat(result.elapsedMillis())
                .as("failure time for a %d ms timeout", timeout.toMillis())
                .isBetween(timeout.toMillis() - 50, timeout.toMillis() + 1_000);
        assertThat(arrivalsAtC.count()).as("attempts that reached C").isGreaterThanOrEqualTo(1);
        assertThat(arrivalsAtRouter2.count())
                .as("attempts dropped at site 2's router")
                .isGreaterThanOrEqualTo(1);
        assertThat(nodeC.servedConnections())
                .as("connections C's service accepted")
                .isZero();
        assertThat(nodeB.servedConnections()).isZero();
    }
}
