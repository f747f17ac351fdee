package io.traverse.hub.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HubRoutingTableTest {
    private static final NodeId SELF = NodeId.of("s");

    @Test
    void shortestPathsWithTiesBrokenByTheLowestNextHop() {
        // s - b - d, s - a - d, s - c - e - f; a and b both reach d in 2: a (lower id) wins.
        Map<NodeId, HubDescription> others = described(Map.of(
                "a",
                List.of("s", "d"),
                "b",
                List.of("s", "d"),
                "c",
                List.of("s", "e"),
                "d",
                List.of("a", "b"),
                "e",
                List.of("c", "f"),
                "f",
                List.of("e")));
        HubRoutingTable table = HubRoutingTable.compute(HubGraph.of(SELF, ids("a", "b", "c"), others));
        assertThat(table.route(id("d"))).contains(new HubRoutingTable.Route(id("d"), id("a"), 2));
        assertThat(table.route(id("f"))).contains(new HubRoutingTable.Route(id("f"), id("c"), 3));
        assertThat(table.route(id("a"))).contains(new HubRoutingTable.Route(id("a"), id("a"), 1));
        assertThat(table.route(SELF)).isEmpty();
        assertThat(table.reachable())
                .containsExactlyInAnyOrder(
                        ids("s", "a", "b", "c", "d", "e", "f").toArray(NodeId[]::new));
    }

    @Test
    void anEdgeCountsOnlyWhenBothEndsListIt() {
        // a still lists d, but d no longer lists a (it lost the link): d is reached through b only.
        Map<NodeId, HubDescription> others = described(
                Map.of("a", List.of("s", "d"), "b", List.of("s", "c"), "c", List.of("b", "d"), "d", List.of("c")));
        HubRoutingTable table = HubRoutingTable.compute(HubGraph.of(SELF, ids("a", "b"), others));
        assertThat(table.route(id("d"))).contains(new HubRoutingTable.Route(id("d"), id("b"), 3));
        // And our own live links are what counts for us: a link we lost withdraws everything behind it at once.
        HubRoutingTable withoutB = HubRoutingTable.compute(HubGraph.of(SELF, ids("a"), others));
        assertThat(withoutB.isReachable(id("d"))).isFalse();
        assertThat(withoutB.isReachable(id("c"))).isFalse();
    }

    @Test
    void hubsOutsideTheGraphAreUnreachable() {
        Map<NodeId, HubDescription> others = described(Map.of("x", List.of("y"), "y", List.of("x")));
        HubRoutingTable table = HubRoutingTable.compute(HubGraph.of(SELF, Set.of(), others));
        assertThat(table.routes()).isEmpty();
        assertThat(table.graph().edges()).containsExactly(List.of(id("x"), id("y")));
    }

    @Test
    void randomGraphsAgreeWithAFloydWarshallOracle() {
        long seed = Long.getLong("testSeed", 0x7261766572L);
        for (int n = 0; n < 300; n++) {
            Random r = new Random(seed + n);
            int size = 2 + r.nextInt(12);
            boolean[][] edge = new boolean[size][size];
            for (int i = 0; i < size; i++) {
                for (int j = i + 1; j < size; j++) {
                    edge[i][j] = edge[j][i] = r.nextInt(3) == 0;
                }
            }
            Map<NodeId, HubDescription> others = new HashMap<>();
            java.util.Set<NodeId> selfLinks = new java.util.TreeSet<>();
            for (int i = 1; i < size; i++) {
                List<NodeId> neighbours = new java.util.ArrayList<>();
                for (int j = 0; j < size; j++) {
                    if (edge[i][j]) {
                        neighbours.add(hub(j));
                    }
                }
                others.put(hub(i), description(hub(i), neighbours));
                if (edge[0][i]) {
                    selfLinks.add(hub(i));
                }
            }
            HubRoutingTable table = HubRoutingTable.compute(HubGraph.of(hub(0), selfLinks, others));
            int[][] dist = floydWarshall(edge);
            for (int t = 1; t < size; t++) {
                String where = "seed " + seed + " case " + n + " target " + t;
                if (dist[0][t] >= Integer.MAX_VALUE / 2) {
                    assertThat(table.route(hub(t))).as(where).isEmpty();
                    continue;
                }
                HubRoutingTable.Route route = table.route(hub(t)).orElseThrow(() -> new AssertionError(where));
                assertThat(route.hops()).as(where).isEqualTo(dist[0][t]);
                // The lowest-id neighbour that lies on a shortest path.
                NodeId expected = null;
                for (int v = 1; v < size; v++) {
                    if (edge[0][v]
                            && dist[v][t] == dist[0][t] - 1
                            && (expected == null || hub(v).compareTo(expected) < 0)) {
                        expected = hub(v);
                    }
                }
                assertThat(route.nextHop()).as(where).isEqualTo(expected);
            }
        }
    }

    private static int[][] floydWarshall(boolean[][] edge) {
        int n = edge.length;
        int[][] d = new int[n][n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                d[i][j] = i == j ? 0 : edge[i][j] ? 1 : Integer.MAX_VALUE / 2;
            }
        }
        for (int k = 0; k < n; k++) {
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    d[i][j] = Math.min(d[i][j], d[i][k] + d[k][j]);
                }
            }
        }
        return d;
    }

    private static NodeId hub(int i) {
        return NodeId.of("h" + (char) ('a' + i));
    }

    private static Map<NodeId, HubDescription> described(Map<String, List<String>> neighbours) {
        Map<NodeId, HubDescription> out = new HashMap<>();
        neighbours.forEach((hub, list) -> out.put(
                id(hub), description(id(hub), list.stream().map(NodeId::of).toList())));
        return out;
    }

    private static HubDescription description(NodeId hub, List<NodeId> neighbours) {
        return new HubDescription(hub, 1, "hub-" + hub, List.of(), neighbours, List.of(), List.of());
    }

    private static NodeId id(String text) {
        return NodeId.of(text);
    }

    private static Set<NodeId> ids(String... texts) {
        java.util.Set<NodeId> out = new java.util.TreeSet<>();
        for (String t : texts) {
            out.add(NodeId.of(t));
        }
        return out;
    }
}
