package io.traverse.splice;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.splice.SpliceMessages.PublicEndpoint;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpliceScheduleTest {
    @Test
    void theSidesTakeTurnsToFireFirstWithALongerLeadLater() {
        long start = 1_000_000_000L;
        for (int round = 0; round < SpliceSchedule.ROUNDS; round++) {
            long source = SpliceSchedule.fireAt(start, round, true);
            long target = SpliceSchedule.fireAt(start, round, false);
            long roundStart = start + round * SpliceSchedule.ROUND_INTERVAL_NANOS;
            if (round % 2 == 0) {
                assertThat(source).as("round %d", round).isEqualTo(roundStart);
                assertThat(target - source).isEqualTo(SpliceSchedule.leadNanos(round));
            } else {
                assertThat(target).as("round %d", round).isEqualTo(roundStart);
                assertThat(source - target).isEqualTo(SpliceSchedule.leadNanos(round));
            }
            assertThat(SpliceSchedule.leadNanos(round)).isLessThan(SpliceSchedule.ROUND_INTERVAL_NANOS);
        }
        assertThat(SpliceSchedule.leadNanos(2)).isGreaterThan(SpliceSchedule.leadNanos(0));
    }

    @Test
    void eachRoundPairsThisSidesPortWithThePeersPortsOfThatRound() throws Exception {
        InetAddress peer = InetAddress.getByName("198.18.0.3");
        PublicEndpoint endpoint = new PublicEndpoint(peer, List.of(41000, 52000, 33000), 2);
        List<SimultaneousOpen.Round> rounds = SpliceSchedule.rounds(null, List.of(1001, 1002, 1003, 1004), endpoint, 0, true);
        assertThat(rounds).hasSize(3).as("as many rounds as both offered");
        assertThat(rounds.get(1).local().getPort()).isEqualTo(1002);
        assertThat(rounds.get(1).remotes()).extracting(a -> a.getPort()).containsExactly(52000, 52001);
        assertThat(rounds.get(1).remotes()).allSatisfy(a -> assertThat(a.getAddress()).isEqualTo(peer));
        assertThat(rounds.get(1).fireAtNanos()).isEqualTo(SpliceSchedule.fireAt(0, 1, true));
    }
}
