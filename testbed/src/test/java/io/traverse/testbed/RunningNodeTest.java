package io.traverse.testbed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The node agent handle: a working pair on one site, and an agent that cannot start failing with its reason. */
@Timeout(60)
class RunningNodeTest {
    private Testbed testbed;
    private Site site;

    @BeforeEach
    void start() {
        TestbedPrerequisites.require();
        testbed = Testbed.create();
        site = testbed.site("lan", "192.168.7.0/24");
    }

    @AfterEach
    void stop() {
        if (testbed != null) {
            testbed.close();
            TestbedPrerequisites.assertRemoved(testbed);
        }
    }

    @Test
    void nodesOnOneSiteConnectDirectlyAndVerifyTheData() {
        Host x = site.host("x");
        Host y = site.host("y");
        RunningNode nodeX = RunningNode.start(x, NodeSettings.create().bind(x.address()));
        RunningNode nodeY = RunningNode.start(y, NodeSettings.create().bind(y.address()).servicePort(4242));

        assertThat(nodeY.address().getPort()).isEqualTo(4242);
        assertThat(nodeY.address().node().addresses()).extracting(a -> a.getAddress()).containsExactly(y.address());
        TransferResult r = nodeX.connect(nodeY.address(), 1 << 20, Duration.ofSeconds(5));
        assertThat(r.ok()).as(r::toString).isTrue();
        assertThat(r.servedBy()).isEqualTo(nodeY.nodeId());
        assertThat(r.peer()).startsWith(x.address().getHostAddress() + ":");
        assertThat(r.setupMicros()).isPositive();
        assertThat(nodeY.servedConnections()).isEqualTo(1);
    }

    @Test
    void aColdJvmConnectsAtStartAndVerifiesTheData() {
        Host x = site.host("x");
        Host y = site.host("y");
        RunningNode nodeY = RunningNode.start(y, NodeSettings.create().bind(y.address()));

        TransferResult r = RunningNode.coldConnect(x, NodeSettings.create().bind(x.address()), nodeY.address(), 1 << 20,
                Duration.ofSeconds(5));
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

        TransferResult r = RunningNode.coldConnect(x, NodeSettings.create().bind(x.address()), nodeY.address(), 1 << 20,
                Duration.ofSeconds(5));
        assertThat(r.ok()).isFalse();
        assertThat(r.error()).isNotEmpty();
    }

    @Test
    void anAgentThatCannotStartFailsWithItsReason() {
        Host x = site.host("x");
        RunningNode.start(x, NodeSettings.create().bind(x.address()).portRange("7000"));
        assertThatThrownBy(() -> RunningNode.start(x, NodeSettings.create().bind(x.address()).portRange("7000")))
                .isInstanceOf(TestbedException.class)
                .hasMessageContaining("did not start")
                .hasMessageContaining("BindException")
                .hasMessageContaining("7000")
                .hasMessageContaining("--- its log");
    }

    @Test
    void invalidSettingsFailBeforeAnyJvmStarts() {
        assertThatThrownBy(() -> NodeSettings.create().portRange("seven"))
                .hasMessageContaining("traverse.port.range");
        assertThatThrownBy(() -> NodeSettings.create().set("traverse.no.such.key", "1"))
                .hasMessageContaining("traverse.no.such.key");
    }
}
