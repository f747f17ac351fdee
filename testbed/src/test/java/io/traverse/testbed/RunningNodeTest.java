package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The node agent handle: a working pair on one site, and an agent that cannot start failing with its reason. */
@Timeout(60)
class RunningNodeTest {
    @RegisterExtension
    final FreshTestbed testbed = new FreshTestbed();

    private Site site;

    @BeforeEach
    void start() {
        site = testbed.get().site("lan", "192.168.7.0/24");
    }

    @Test
    void nodesOnOneSiteConnectDirectlyAndVerifyTheData() {
        Host x = site.host("x");
        Host y = site.host("y");
        RunningNode nodeX = RunningNode.start(x, NodeSettings.create().bind(x.address()));
        RunningNode nodeY =
                RunningNode.start(y, NodeSettings.create().bind(y.address()).servicePort(4242));

        assertThat(nodeY.address().getPort()).isEqualTo(4242);
        assertThat(nodeY.address().node().addresses())
                .extracting(a -> a.getAddress())
                .containsExactly(y.address());
        TransferResult r = nodeX.connect(nodeY.address(), 1 << 20, Duration.ofSeconds(5));
        assertThat(r.ok()).as(r::toString).isTrue();
        assertThat(r.servedBy()).isEqualTo(nodeY.nodeId());
        assertThat(r.peer()).startsWith(x.address().getHostAddress() + ":");
        assertThat(r.setupMicros()).isPositive();
        assertThat(nodeY.servedConnections()).isEqualTo(1);
    }

    @Test
    void roundTripsAndPlainSocketsReachTheSameNode() {
        Host x = site.host("x");
        Host y = site.host("y");
        RunningNode nodeX = RunningNode.start(x, NodeSettings.create().bind(x.address()));
        RunningNode nodeY =
                RunningNode.start(y, NodeSettings.create().bind(y.address()).plainPorts(7100, 7101));

        RoundTripResult rtt = nodeX.roundTrips(nodeY.echoAddress(), 50, Duration.ofSeconds(5));
        assertThat(rtt.ok()).as(rtt::toString).isTrue();
        assertThat(rtt.module()).isEqualTo("direct");
        assertThat(rtt.rounds()).isEqualTo(50);
        assertThat(rtt.minNanos()).isPositive().isLessThanOrEqualTo(rtt.medianNanos());

        TransferResult plain =
                nodeX.plainConnect(new InetSocketAddress(y.address(), 7100), 1 << 20, Duration.ofSeconds(5));
        assertThat(plain.ok()).as(plain::toString).isTrue();
        assertThat(plain.module()).isEqualTo("plain");
        assertThat(plain.servedBy()).isEqualTo(nodeY.nodeId());
        assertThat(plain.peer()).startsWith(x.address().getHostAddress() + ":");

        RoundTripResult plainRtt =
                nodeX.plainRoundTrips(new InetSocketAddress(y.address(), 7101), 50, Duration.ofSeconds(5));
        assertThat(plainRtt.ok()).as(plainRtt::toString).isTrue();
        assertThat(plainRtt.module()).isEqualTo("plain");

        TransferResult nobody =
                nodeX.plainConnect(new InetSocketAddress(y.address(), 7102), 1 << 20, Duration.ofSeconds(5));
        assertThat(nobody.ok()).isFalse();
        assertThat(nobody.error()).contains("ConnectException");
    }

    @Test
    void aColdJvmConnectsAtStartAndVerifiesTheData() {
        Host x = site.host("x");
        Host y = site.host("y");
        RunningNode nodeY = RunningNode.start(y, NodeSettings.create().bind(y.address()));

        TransferResult r = RunningNode.coldConnect(
                x, NodeSettings.create().bind(x.address()), nodeY.address(), 1 << 20, Duration.ofSeconds(5));
        assertThat(r.ok()).as(r::toString).isTrue();
        assertThat(r.module()).isEqualTo("direct");
        assertThat(r.bytes()).isEqualTo(1 << 20);
        assertThat(r.servedBy()).isEqualTo(nodeY.nodeId());
        assertThat(r.peer()).startsWith(x.address().getHostAddress() + ":");
        assertThat(nodeY.servedConnections()).isEqualTo(1);
    }

    @Test
    void aColdConnectThatFailsIsAResultWithItsReason() {
        Host x = site.host("x");
        Host y = site.host("y");
        RunningNode nodeY = RunningNode.start(y, NodeSettings.create().bind(y.address()));
        nodeY.close(); // its address now leads nowhere: connections are refused

        TransferResult r = RunningNode.coldConnect(
                x, NodeSettings.create().bind(x.address()), nodeY.address(), 1 << 20, Duration.ofSeconds(5));
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).isNotEmpty();
    }

    @Test
    void anAgentThatCannotStartFailsWithItsReason() {
        Host x = site.host("x");
        RunningNode.start(x, NodeSettings.create().bind(x.address()).portRange("7000"));
        assertThatThrownBy(() -> RunningNode.start(
                        x, NodeSettings.create().bind(x.address()).portRange("7000")))
                .isInstanceOf(TestbedException.class)
                .hasMessageContaining("did not start")
                .hasMessageContaining("BindException")
                .hasMessageContaining("7000")
                .hasMessageContaining("--- its log");
    }

    @Test
    void invalidSettingsFailBeforeAnyJvmStarts() {
        assertThatThrownBy(() -> NodeSettings.create().portRange("seven")).hasMessageContaining("traverse.port.range");
        assertThatThrownBy(() -> NodeSettings.create().set("traverse.no.such.key", "1"))
                .hasMessageContaining("traverse.no.such.key");
    }
}
