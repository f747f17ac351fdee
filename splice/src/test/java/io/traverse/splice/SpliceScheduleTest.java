package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.splice.SpliceMessages.PublicEndpoint;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpliceScheduleTest {
    private static final long DELAY = 5_000_000L;

    @Test
    void bothOrdersAreTriedAtOnceAndAgainWithTwiceTheLead() {
        long reference = 1_000_000_000L;
        for (int round = 0; round < SpliceSchedule.TURN_ROUNDS; round++) {
            long pairStart = reference + (round / 2) * SpliceSchedule.PAIR_INTERVAL_NANOS;
            long source = SpliceSchedule.fireAt(reference, round, true, DELAY);
            long target = SpliceSchedule.fireAt(reference, round, false, DELAY);
            assertThat(source)
                    .as("the source fires on the answer's arrival, round %d", round)
                    .isEqualTo(pairStart);
            if (SpliceSchedule.sourceFirst(round)) {
                assertThat(target - pairStart)
                        .as("the target's lead in round %d", round)
                        .isEqualTo((round / 2 + 1) * DELAY);
            } else {
                assertThat(target)
                        .as("the target fires as it answers, round %d", round)
                        .isEqualTo(pairStart);
            }
        }
        assertThat(SpliceSchedule.sourceFirst(0)).isTrue();
        assertThat(SpliceSchedule.sourceFirst(1)).isFalse();
    }

    @Test
    void theLeadCoversTheAnswersWayTwiceOver() {
        assertThat(SpliceSchedule.fireDelayNanos(4_000_000, 200_000)).isEqualTo(4_200_000);
        assertThat(SpliceSchedule.fireDelayNanos(0, 0)).isEqualTo(SpliceSchedule.MIN_FIRE_DELAY_NANOS);
    }

    @Test
    void eachRoundPairsThisSidesPortWithThePeersPortsOfThatRound() throws Exception {
        InetAddress peer = InetAddress.getByName("198.18.0.3");
        PublicEndpoint endpoint = new PublicEndpoint(peer, List.of(41000, 52000, 33000), 2);
        List<SimultaneousOpen.Round> rounds =
                SpliceSchedule.rounds(null, List.of(1001, 1002, 1003, 1004), endpoint, 0, false, DELAY, false);
        assertThat(rounds).as("as many rounds as both offered").hasSize(3);
        assertThat(rounds.get(1).local().getPort()).isEqualTo(1002);
        assertThat(rounds.get(1).remotes()).extracting(a -> a.getPort()).containsExactly(52000, 52001);
        assertThat(rounds.get(1).remotes())
                .allSatisfy(a -> assertThat(a.getAddress()).isEqualTo(peer));
        assertThat(rounds.get(0).fireAtNanos())
                .isEqualTo(SpliceSchedule.fireAt(0, 0, false, DELAY))
                .isEqualTo(DELAY);
        assertThat(rounds.get(1).fireAtNanos()).isZero();
        assertThat(rounds).noneMatch(SimultaneousOpen.Round::primes);
    }

    @Test
    void theRoundsAfterTheTurnsPrime() throws Exception {
        PublicEndpoint endpoint = new PublicEndpoint(
                InetAddress.getByName("198.18.0.3"), List.of(41000, 52000, 33000, 34000, 35000, 36000), 1);
        List<Integer> local = List.of(1001, 1002, 1003, 1004, 1005, 1006);
        for (boolean source : new boolean[] {true, false}) {
            List<SimultaneousOpen.Round> rounds = SpliceSchedule.rounds(null, local, endpoint, 7, source, DELAY, true);
            assertThat(rounds).extracting(SimultaneousOpen.Round::primeTtl).containsExactly(0, 0, 0, 0, 3, 2);
            assertThat(rounds.subList(4, 6)).allMatch(r -> r.fireAtNanos() == 7);
            for (int k = 0; k < 4; k++) {
                assertThat(rounds.get(k).fireAtNanos()).isEqualTo(SpliceSchedule.fireAt(7, k, source, DELAY));
            }
        }
        assertThat(SpliceSchedule.rounds(null, local.subList(0, 4), endpoint, 7, true, DELAY, true))
                .as("a peer that offers the turns alone plays them alone")
                .noneMatch(SimultaneousOpen.Round::primes);
        assertThat(SpliceSchedule.rounds(null, local, endpoint, 7, true, DELAY, false))
                .noneMatch(SimultaneousOpen.Round::primes);
    }
}
