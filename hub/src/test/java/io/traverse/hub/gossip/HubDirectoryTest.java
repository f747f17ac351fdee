package io.traverse.hub.gossip;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.identity.NodeId;
import io.traverse.wire.GossipSummary;
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
        assertThat(after.raiseAbove(after.current() + 5))
                .isEqualTo(after.current())
                .isGreaterThan(before.current() + 5);
    }

    @Test
    void onlyUnreachableHubsExpireHoweverLongTheyHaveBeenSilent() {
        HubDirectory directory = new HubDirectory(16);
        directory.offer(description(1, "quiet-but-reachable"), 0);
        NodeId other = NodeId.of("hub-y");
        NodeId never = NodeId.of("hub-z");
        directory.offer(new HubDescription(other, 1, "cut-off", List.of(), List.of(), List.of(), List.of()), 0);
        directory.offer(new HubDescription(never, 1, "never-reached", List.of(), List.of(), List.of(), List.of()), 0);
        directory.markReachable(Set.of(HUB, other), 0);
        // y is cut off from 2 s on; z was never reached (unreachable since it arrived, at 0).
        directory.markReachable(Set.of(HUB), 2 * SECOND);
        assertThat(directory.expire(2 * SECOND, 3 * SECOND)).isEmpty();
        assertThat(directory.expire(3 * SECOND + 1, 3 * SECOND))
                .extracting(HubDescription::hubId)
                .containsExactly(never);
        assertThat(directory.expire(5 * SECOND + 1, 3 * SECOND))
                .extracting(HubDescription::hubId)
                .containsExactly(other);
        // x said nothing for a minute, but the routes reach it: it is alive.
        assertThat(directory.expire(60 * SECOND, 3 * SECOND)).isEmpty();
        assertThat(directory.get(HUB)).isNotNull();
    }

    @Test
    void aHubUnreachableAgainAfterComingBackExpiresFromItsLatestAbsence() {
        HubDirectory directory = new HubDirectory(16);
        NodeId flapping = NodeId.of("hub-f");
        directory.offer(new HubDescription(flapping, 1, "flapping", List.of(), List.of(), List.of(), List.of()), 0);
        directory.markReachable(Set.of(flapping), 0);
        directory.markReachable(Set.of(), SECOND);
        directory.markReachable(Set.of(flapping), 2 * SECOND);
        directory.markReachable(Set.of(), 4 * SECOND);
        // Unreachable from 1 s to 2 s and again from 4 s: with an expiry of 3 s it goes at 7 s, not at 4 s.
        assertThat(directory.expire(4 * SECOND + 1, 3 * SECOND)).isEmpty();
        assertThat(directory.expire(6 * SECOND, 3 * SECOND)).isEmpty();
        assertThat(directory.expire(7 * SECOND + 1, 3 * SECOND))
                .extracting(HubDescription::hubId)
                .containsExactly(flapping);
    }

    @Test
    void theSummaryCoversTheOwnStateAndReachableHubsAndFollowsEveryChange() {
        NodeId self = NodeId.of("hub-self");
        NodeId a = NodeId.of("hub-a");
        NodeId b = NodeId.of("hub-b");
        HubDirectory mine = new HubDirectory(16);
        assertThat(mine.summary(self, 7)).isEqualTo(new GossipSummary(1, GossipSummary.entryHash(self, 7)));
        mine.offer(new HubDescription(a, 3, "a", List.of(), List.of(), List.of(), List.of()), 0);
        mine.offer(new HubDescription(b, 5, "b", List.of(), List.of(), List.of(), List.of()), 0);
        assertThat(mine.summary(self, 7).descriptions())
                .as("not reached yet: left out")
                .isEqualTo(1);
        mine.markReachable(Set.of(self, a, b), 0);
        GossipSummary all = mine.summary(self, 7);
        assertThat(all)
                .isEqualTo(new GossipSummary(
                        3,
                        GossipSummary.entryHash(self, 7)
                                + GossipSummary.entryHash(a, 3)
                                + GossipSummary.entryHash(b, 5)));
        // A's neighbour holding the same states, learned in another order, sums to the same.
        HubDirectory theirs = new HubDirectory(16);
        theirs.offer(new HubDescription(b, 4, "b", List.of(), List.of(), List.of(), List.of()), 0);
        theirs.offer(new HubDescription(self, 7, "self", List.of(), List.of(), List.of(), List.of()), 0);
        theirs.markReachable(Set.of(a, self, b), 0);
        assertThat(theirs.summary(a, 3)).as("b at an older state").isNotEqualTo(all);
        theirs.offer(new HubDescription(b, 5, "b", List.of(), List.of(), List.of(), List.of()), 0);
        assertThat(theirs.summary(a, 3)).isEqualTo(all);
        // b cut off, then forgotten: out of the summary at once.
        mine.markReachable(Set.of(self, a), SECOND);
        assertThat(mine.summary(self, 7))
                .isEqualTo(new GossipSummary(2, GossipSummary.entryHash(self, 7) + GossipSummary.entryHash(a, 3)));
        mine.expire(10 * SECOND, SECOND);
        assertThat(mine.summary(self, 7))
                .isEqualTo(new GossipSummary(2, GossipSummary.entryHash(self, 7) + GossipSummary.entryHash(a, 3)));
        assertThat(mine.isReachable(a)).isTrue();
        assertThat(mine.isReachable(b)).isFalse();
    }

    @Test
    void theDirectoryIsBounded() {
        HubDirectory directory = new HubDirectory(2);
        for (String id : new String[] {"h1", "h2", "h3"}) {
            directory.offer(new HubDescription(NodeId.of(id), 1, id, List.of(), List.of(), List.of(), List.of()), 0);
        }
        assertThat(directory.size()).isEqualTo(2);
        assertThat(directory.get(NodeId.of("h3"))).isNull();
        assertThat(directory.offer(
                        new HubDescription(NodeId.of("h1"), 2, "h1", List.of(), List.of(), List.of(), List.of()), 0))
                .as("known hubs still get news")
                .isTrue();
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
        assertThat(directory.neighbourSets()).isEmpty();
        // For one more expiry time, the state it was forgotten at (or older) is no news: a dead hub does not come back.
        assertThat(directory.holdsAtLeast(HUB, 7)).isTrue();
        assertThat(directory.offer(
                        new HubDescription(HUB, 7, "x", List.of(), List.of(a, b), List.of(), List.of()), 10 * SECOND))
                .isFalse();
        assertThat(directory.get(HUB)).isNull();
        directory.expire(11 * SECOND + 1, SECOND);
        assertThat(directory.holdsAtLeast(HUB, 1))
                .as("forgotten hubs are news again after that")
                .isFalse();
        // A restarted hub (a newer state) is news at once.
        directory.expire(20 * SECOND, SECOND);
        directory.offer(new HubDescription(HUB, 8, "x", List.of(), List.of(), List.of(), List.of()), 20 * SECOND);
        directory.expire(22 * SECOND, SECOND);
        assertThat(directory.offer(
                        new HubDescription(HUB, 9, "x", List.of(), List.of(), List.of(), List.of()), 22 * SECOND))
                .isTrue();
    }

    private static HubDescription description(long state, String name) {
        return new HubDescription(HUB, state, name, List.of(), List.of(), List.of(), List.of());
    }
}
