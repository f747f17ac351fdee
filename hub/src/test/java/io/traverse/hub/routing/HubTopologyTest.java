package io.traverse.hub.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HubTopologyTest {
    private static final NodeId SELF = hub(0);

    /**
     * A topology updated one list at a time (hubs listing, unlisting, forgotten and back, this hub's
     * links coming and going) must always give what a computation from scratch gives on the lists
     * as they stand (HubRoutingTableTest checks that against an all-pairs oracle).
     */
    @Test
    void updatedOneListAtATimeItAgreesWithAComputationFromScratch() {
        long seed = Long.getLong("testSeed", 0x746f706fL);
        for (int run = 0; run < 40; run++) {
            Random r = new Random(seed + run);
            int size = 3 + r.nextInt(30);
            HubTopology topology = new HubTopology(SELF);
            Map<NodeId, Set<NodeId>> lists = new HashMap<>();
            lists.put(SELF, Set.of());
            for (int step = 0; step < 300; step++) {
                NodeId hub = hub(r.nextInt(size));
                Set<NodeId> list;
                if (!hub.equals(SELF) && r.nextInt(8) == 0) {
                    list = null; // forgotten
                } else {
                    Set<NodeId> s = new HashSet<>(lists.getOrDefault(hub, Set.of()));
                    int flips = 1 + r.nextInt(3);
                    for (int f = 0; f < flips; f++) {
                        NodeId other = hub(r.nextInt(size));
                        if (!other.equals(hub) && !s.remove(other)) {
                            s.add(other);
                        }
                    }
                    list = Set.copyOf(s);
                }
                HubRoutingTable before = topology.routes();
                Set<java.util.List<NodeId>> edgesBefore =
                        Set.copyOf(before.graph().edges());
                boolean changed = topology.list(hub, list);
                if (list == null) {
                    lists.remove(hub);
                } else {
                    lists.put(hub, list);
                }
                HubRoutingTable incremental = topology.routes();
                HubRoutingTable fresh = HubRoutingTable.compute(HubGraph.ofListed(SELF, lists.get(SELF), lists));
                String where = "seed " + (seed + run) + " step " + step;
                assertThat(incremental.routes()).as(where).isEqualTo(fresh.routes());
                assertThat(incremental.graph().edges())
                        .as(where)
                        .isEqualTo(fresh.graph().edges());
                assertThat(changed)
                        .as(where + ": whether an edge changed")
                        .isEqualTo(!edgesBefore.equals(Set.copyOf(fresh.graph().edges())));
                if (!changed && list != null) {
                    assertThat(incremental)
                            .as(where + ": nothing changed, the same table")
                            .isSameAs(before);
                }
            }
        }
    }

    private static NodeId hub(int i) {
        return NodeId.of("h" + i);
    }
}
