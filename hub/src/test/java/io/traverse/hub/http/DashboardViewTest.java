package io.traverse.hub.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.hub.HubStatus;
import io.traverse.hub.HubStatus.KnownHubStatus;
import io.traverse.identity.NodeId;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** What the dashboard shows, made from a status: which links are drawn, whose round-trip time each shows, and its JSON. */
class DashboardViewTest {
    private static final NodeId SELF = NodeId.of("hub-self");
    private static final NodeId B = NodeId.of("hub-b");
    private static final NodeId C = NodeId.of("hub-c");
    private static final NodeId D = NodeId.of("hub-d");
    private static final NodeId E = NodeId.of("hub-e");
    private static final NodeId NODE = NodeId.of("node-1");

    @Test
    void linksAreThoseBothEndsListWithTheTimeOfAnEndThatMeasuredIt() {
        Map<NodeId, KnownHubStatus> known = new TreeMap<>();
        known.put(B, hub("b", true, List.of(SELF, C, D), List.of(510L, -1L, 40L)));
        known.put(C, hub("c", true, List.of(SELF, B), List.of(-1L, 300L)));
        known.put(D, hub("d", true, List.of(B), null)); // an older hub: no times
        known.put(E, hub("e", false, List.of(B), List.of(90L))); // B does not list E: no link
        HubStatus status = new HubStatus(
                SELF,
                "self",
                7,
                List.of(),
                List.of(
                        new HubStatus.HubLinkStatus(B, true, "127.0.0.1:1", 500),
                        new HubStatus.HubLinkStatus(C, false, "127.0.0.1:2", -1)),
                Map.of(
                        B,
                        new HubStatus.RouteStatus(B, 1),
                        C,
                        new HubStatus.RouteStatus(C, 1),
                        D,
                        new HubStatus.RouteStatus(B, 2)),
                known,
                List.of(new HubStatus.NodeStatus(NODE, "identity", "127.0.0.1:3", 120, Map.of("svc", 80))),
                Map.of(
                        "svc",
                        new HubStatus.NameStatus(NODE, SELF, 80),
                        "far",
                        new HubStatus.NameStatus(NodeId.of("node-2"), D, 22)),
                0,
                0,
                Map.of(),
                null,
                List.of());

        DashboardView view = DashboardView.of(
                status, new HubTraffic(1000, 0, Map.of("routed", 2L), 1), new RelayThroughput.Rate(10, 0, 10), 42);

        assertThat(view.links())
                .containsExactlyInAnyOrder(
                        new DashboardView.LinkEdge(SELF.toString(), "self", B.toString(), "b", 500, "self"),
                        new DashboardView.LinkEdge(SELF.toString(), "self", C.toString(), "c", -1, "self"),
                        new DashboardView.LinkEdge(B.toString(), "b", C.toString(), "c", 300, "c"),
                        new DashboardView.LinkEdge(B.toString(), "b", D.toString(), "d", 40, "b"));
        assertThat(view.hubs()).extracting(DashboardView.HubVertex::name).containsExactly("b", "c", "d", "e", "self");
        assertThat(view.hubs())
                .filteredOn(DashboardView.HubVertex::self)
                .extracting(DashboardView.HubVertex::name)
                .containsExactly("self");
        assertThat(view.hubs())
                .filteredOn(h -> !h.reachable())
                .extracting(DashboardView.HubVertex::name)
                .containsExactly("e");
        assertThat(view.nodes())
                .containsExactly(new DashboardView.NodeRow(NODE.toString(), "127.0.0.1:3", 120, List.of("svc")));
        assertThat(view.names())
                .containsExactlyInAnyOrder(
                        new DashboardView.NameRow("svc", 80, NODE.toString(), "self"),
                        new DashboardView.NameRow("far", 22, "node-2", "d"));
        assertThat(view.toJson())
                .doesNotContain("\n")
                .contains("\"totalPerSecond\":10")
                .contains("\"connectionSetUps\":{\"routed\":2}");
    }

    @Test
    void aViewCarriesTheFirstNodesAndNamesAndHowManyThereAre() {
        int many = DashboardView.MAX_ROWS + 100;
        List<HubStatus.NodeStatus> nodes = new java.util.ArrayList<>();
        Map<String, HubStatus.NameStatus> names = new java.util.HashMap<>();
        for (int i = 0; i < many; i++) {
            NodeId node = NodeId.of(String.format("node-%04d", i));
            nodes.add(new HubStatus.NodeStatus(node, "identity", "127.0.0.1:" + (1000 + i), 100, Map.of()));
            names.put(String.format("svc-%04d", i), new HubStatus.NameStatus(node, SELF, 80));
        }
        HubStatus status = new HubStatus(
                SELF, "self", 7, List.of(), List.of(), Map.of(), Map.of(), nodes, names, 0, 0, Map.of(), null,
                List.of());

        DashboardView view = DashboardView.of(status, new HubTraffic(0, 0, Map.of(), 0), RelayThroughput.Rate.NONE, 42);

        assertThat(view.nodeCount()).isEqualTo(many);
        assertThat(view.nodes())
                .hasSize(DashboardView.MAX_ROWS)
                .first()
                .extracting(DashboardView.NodeRow::id)
                .isEqualTo("node-0000");
        assertThat(view.nameCount()).isEqualTo(many);
        assertThat(view.names())
                .hasSize(DashboardView.MAX_ROWS)
                .extracting(DashboardView.NameRow::name)
                .startsWith("svc-0000", "svc-0001")
                .endsWith(String.format("svc-%04d", DashboardView.MAX_ROWS - 1))
                .isSorted();
        assertThat(view.toJson())
                .contains("\"nodeCount\":" + many)
                .contains("\"nameCount\":" + many)
                .doesNotContain("svc-0" + DashboardView.MAX_ROWS);
    }

    @Test
    void throughputIsTheGrowthOfTheCountersSinceTheLastSample() {
        RelayThroughput throughput = new RelayThroughput();
        assertThat(throughput.sample(0, traffic(5_000, 1_000))).isEqualTo(RelayThroughput.Rate.NONE);
        assertThat(throughput.sample(500_000_000L, traffic(10_000, 2_000)))
                .isEqualTo(new RelayThroughput.Rate(10_000, 2_000, 12_000));
        assertThat(throughput.sample(1_000_000_000L, traffic(10_000, 2_000)))
                .isEqualTo(new RelayThroughput.Rate(0, 0, 0));
    }

    private static HubTraffic traffic(long delivered, long forwarded) {
        return new HubTraffic(delivered, forwarded, Map.of(), 0);
    }

    private static KnownHubStatus hub(String name, boolean reachable, List<NodeId> neighbours, List<Long> rtts) {
        return new KnownHubStatus(name, 1, List.of(), neighbours, reachable, rtts);
    }
}
