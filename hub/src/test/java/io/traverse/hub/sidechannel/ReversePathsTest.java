package io.traverse.hub.sidechannel;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import org.junit.jupiter.api.Test;

class ReversePathsTest {
    private static final NodeId NODE = NodeId.of("far-node");
    private static final NodeId HUB_1 = NodeId.of("hub-1");
    private static final NodeId HUB_2 = NodeId.of("hub-2");

    @Test
    void theLastNeighbourANodeWasHeardThroughWinsUntilItExpires() {
        ReversePaths paths = new ReversePaths(8, 1000);
        assertThat(paths.neighbourFor(NODE, 0)).isNull();
        paths.remember(NODE, HUB_1, 0);
        paths.remember(NODE, HUB_2, 10);
        assertThat(paths.neighbourFor(NODE, 500)).isEqualTo(HUB_2);
        assertThat(paths.neighbourFor(NODE, 1011)).isNull();
    }

    @Test
    void boundedLeastRecentlyUsedOut() {
        ReversePaths paths = new ReversePaths(2, 1000);
        paths.remember(NodeId.of("n1"), HUB_1, 0);
        paths.remember(NodeId.of("n2"), HUB_1, 0);
        assertThat(paths.neighbourFor(NodeId.of("n1"), 1)).isEqualTo(HUB_1);
        paths.remember(NodeId.of("n3"), HUB_1, 0);
        assertThat(paths.neighbourFor(NodeId.of("n2"), 1)).isNull();
        assertThat(paths.neighbourFor(NodeId.of("n1"), 1)).isEqualTo(HUB_1);
    }
}
