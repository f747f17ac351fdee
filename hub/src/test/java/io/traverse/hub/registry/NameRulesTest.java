package io.traverse.hub.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import java.util.List;
import org.junit.jupiter.api.Test;

class NameRulesTest {
    @Test
    void hostNamesAreFineAndCompareWithoutCase() {
        for (String ok : new String[] {"db", "Orders-DB.site1", "a", "x1.y2.z3", "1a", "l".repeat(63)}) {
            assertThat(NameRules.problem(ok)).as(ok).isNull();
        }
        assertThat(NameRules.canonical("Orders-DB")).isEqualTo("orders-db");
    }

    @Test
    void whatCouldBeReadAsSomethingElseIsNot() {
        assertThat(NameRules.problem("10.0.0.1")).contains("IP address");
        assertThat(NameRules.problem("123")).contains("IP address");
        assertThat(NameRules.problem("tv1-k2abc.a10-0-0-1p5000")).contains("identity");
        assertThat(NameRules.problem("-x")).contains("'-'");
        assertThat(NameRules.problem("a..b")).contains("label");
        assertThat(NameRules.problem("a_b")).contains("letters");
        assertThat(NameRules.problem("l".repeat(64))).contains("1-63");
    }

    @Test
    void theNearerHubWinsAConflictAndStaleListingsAreIgnored() {
        NodeId near = NodeId.of("near-hub");
        NodeId far = NodeId.of("far-hub");
        NodeId nodeNear = NodeId.of("n1");
        NodeId nodeFar = NodeId.of("n2");
        HubDescription nearHub = new HubDescription(
                near,
                1,
                "near",
                List.of(),
                List.of(),
                List.of(new HubDescription.NodeEntry(nodeNear, "tv1-n1.a10-0-0-1p1")),
                List.of(new HubDescription.NameEntry("db", nodeNear, 5432)));
        // far still lists n1 (it failed over to near) with a name: that listing does not count.
        HubDescription farHub = new HubDescription(
                far,
                1,
                "far",
                List.of(),
                List.of(),
                List.of(
                        new HubDescription.NodeEntry(nodeFar, "tv1-n2.a10-0-0-2p1"),
                        new HubDescription.NodeEntry(nodeNear, "tv1-n1.a10-0-0-9p1")),
                List.of(
                        new HubDescription.NameEntry("db", nodeFar, 1),
                        new HubDescription.NameEntry("old", nodeNear, 2)));
        NetworkIndex index = NetworkIndex.of(List.of(nearHub, farHub));
        assertThat(index.name("db").nodeId()).isEqualTo(nodeNear);
        assertThat(index.name("old")).isNull();
        assertThat(index.node(nodeNear).hubId()).isEqualTo(near);
        assertThat(index.node(nodeFar).hubId()).isEqualTo(far);
    }
}
