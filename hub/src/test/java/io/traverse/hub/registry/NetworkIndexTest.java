package io.traverse.hub.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import io.traverse.wire.HubDescription.NameEntry;
import io.traverse.wire.HubDescription.NodeEntry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which claim on a name wins when hubs list it for different nodes: the same at every hub, whatever its place. */
class NetworkIndexTest {
    private static final NodeId HUB_A = NodeId.of("hub-a");
    private static final NodeId HUB_B = NodeId.of("hub-b");
    private static final NodeId SMALL = NodeId.of("node-1");
    private static final NodeId LARGE = NodeId.of("node-2");

    @Test
    void ofTwoNodesHoldingANameTheSmallerIdWinsWhicheverHubIsNearer() {
        HubDescription a = hub(HUB_A, SMALL, new NameEntry("race", SMALL, 1));
        HubDescription b = hub(HUB_B, LARGE, new NameEntry("race", LARGE, 2));
        for (List<HubDescription> nearestFirst : List.of(List.of(a, b), List.of(b, a))) {
            NetworkIndex index = NetworkIndex.of(nearestFirst);
            assertThat(index.name("race").nodeId()).isEqualTo(SMALL);
            assertThat(index.name("race").virtualPort()).isEqualTo(1);
        }
    }

    @Test
    void aReservationForTheSmallerIdWinsOverALiveHolderAndIsNoAddress() {
        HubDescription a = hub(HUB_A, null, new NameEntry("race", SMALL, NameEntry.RESERVED));
        HubDescription b = hub(HUB_B, LARGE, new NameEntry("race", LARGE, 2));
        for (List<HubDescription> nearestFirst : List.of(List.of(a, b), List.of(b, a))) {
            NetworkIndex index = NetworkIndex.of(nearestFirst);
            assertThat(index.claim("race").nodeId()).isEqualTo(SMALL);
            assertThat(index.claim("race").reserved()).isTrue();
            assertThat(index.name("race")).isNull();
            assertThat(index.names()).isEmpty();
        }
    }

    @Test
    void ofOneNodesClaimsItsHeldNameWinsOverItsReservation() {
        HubDescription a = hub(HUB_A, null, new NameEntry("moved", LARGE, NameEntry.RESERVED));
        HubDescription b = hub(HUB_B, LARGE, new NameEntry("moved", LARGE, 7));
        for (List<HubDescription> nearestFirst : List.of(List.of(a, b), List.of(b, a))) {
            NetworkIndex index = NetworkIndex.of(nearestFirst);
            assertThat(index.name("moved").hubId()).isEqualTo(HUB_B);
            assertThat(index.name("moved").virtualPort()).isEqualTo(7);
        }
    }

    @Test
    void aHeldNameCountsOnlyAtItsNodesHub() {
        // Hub a still lists the node and its name (it has not noticed the node leave); the node is at b, nearer.
        HubDescription a = hub(HUB_A, SMALL, new NameEntry("stale", SMALL, 1));
        HubDescription b = hub(HUB_B, SMALL);
        NetworkIndex index = NetworkIndex.of(List.of(b, a));
        assertThat(index.claim("stale")).isNull();
    }

    private static HubDescription hub(NodeId hubId, NodeId node, NameEntry... names) {
        List<NodeEntry> nodes = new ArrayList<>();
        if (node != null) {
            nodes.add(new NodeEntry(node, "tv1-" + node));
        }
        return new HubDescription(hubId, 1, hubId.toString(), List.of(), List.of(), nodes, List.of(names));
    }
}
