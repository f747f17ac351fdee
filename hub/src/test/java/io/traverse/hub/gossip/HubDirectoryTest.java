package io.traverse.hub.gossip;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import io.traverse.wire.HubDescription;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HubDirectoryTest {
    private static final NodeId HUB = NodeId.of("hub-x");
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void theNewestStateWinsAndOnlyNewsIsWorthFlooding() {
        HubDirectory directory = new HubDirectory(16);
        assertThat(directory.offer(description(10, "first"), 0)).isTrue();
        assertThat(directory.offer(description(10, "same-state"), 0)).isFalse();
        assertThat(directory.offer(description(9, "older"), 0)).isFalse();
        assertThat(directory.offer(description(11, "newer"), 0)).isTrue();
        assertThat(directory.get(HUB).name()).isEqualTo("newer");
    }

    @Test
    void aRestartedHubsStateBeatsItsEarlierLife() {
        StateNumber before = new StateNumber(1_000_000);
        for (int i = 0; i < 500; i++) {
            before.next();
        }
        StateNumber after = new StateNumber(1_000_001);
        assertThat(after.current()).isGreaterThan(before.current());
        assertThat(after.raiseAbove(after.current() + 5)).isEqualTo(after.current()).isGreaterThan(before.current() + 5);
    }

    @Test
    void silentHubsExpireAndSoDoUnreachableOnes() {
        HubDirectory directory = new HubDirectory(16);
        directory.offer(description(1, "silent"), 0);
        NodeId other = NodeId.of("hub-y");
        directory.offer(new HubDescription(other, 1, "cut-off", List.of(), List.of(), List.of(), List.of()), 0);
        // y keeps gossiping but is not reachable in the graph from some moment on.
        directory.markReachable(Set.of(HUB), 0);
        directory.offer(new HubDescription(other, 2, "cut-off", List.of(), List.of(), List.of(), List.of()), 2 * SECOND);
        directory.markReachable(Set.of(HUB), 2 * SECOND);
        assertThat(directory.expire(2 * SECOND, 3 * SECOND)).isEmpty();
        assertThat(directory.expire(3 * SECOND + 1, 3 * SECOND)).containsExactlyInAnyOrder(HUB, other);
        assertThat(directory.size()).isZero();
    }

    @Test
    void theDirectoryIsBounded() {
        HubDirectory directory = new HubDirectory(2);
        for (String id : new String[] {"h1", "h2", "h3"}) {
            directory.offer(new HubDescription(NodeId.of(id), 1, id, List.of(), List.of(), List.of(), List.of()), 0);
        }
        assertThat(directory.size()).isEqualTo(2);
        assertThat(directory.get(NodeId.of("h3"))).isNull();
        assertThat(directory.offer(new HubDescription(NodeId.of("h1"), 2, "h1", List.of(), List.of(), List.of(), List.of()), 0))
                .as("known hubs still get news").isTrue();
    }

    @Test
    void heldStatesAndNeighbourSetsFollowTheNewestDescriptionAndExpiry() {
        HubDirectory directory = new HubDirectory(16);
        NodeId a = NodeId.of("hub-a");
        NodeId b = NodeId.of("hub-b");
        assertThat(directory.holdsAtLeast(HUB, 1)).isFalse();
        directory.offer(new HubDescription(HUB, 5, "x", List.of(), List.of(a), List.of(), List.of()), 0);
        assertThat(directory.holdsAtLeast(HUB, 4)).isTrue();
        assertThat(directory.holdsAtLeast(HUB, 5)).isTrue();
        assertThat(directory.holdsAtLeast(HUB, 6)).as("a newer state is news").isFalse();
        assertThat(directory.neighbourSets().get(HUB)).containsExactly(a);
        directory.offer(new HubDescription(HUB, 7, "x", List.of(), List.of(a, b), List.of(), List.of()), 0);
        assertThat(directory.holdsAtLeast(HUB, 6)).isTrue();
        assertThat(directory.neighbourSets().get(HUB)).containsExactlyInAnyOrder(a, b);
        assertThat(directory.stateNumbers()).containsEntry(HUB, 7L);
        directory.expire(10 * SECOND, SECOND);
        assertThat(directory.holdsAtLeast(HUB, 1)).as("forgotten hubs are news again").isFalse();
        assertThat(directory.neighbourSets()).isEmpty();
    }

    private static HubDescription description(long state, String name) {
        return new HubDescription(HUB, state, name, List.of(), List.of(), List.of(), List.of());
    }
}
