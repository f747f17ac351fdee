package io.traverse.routed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The round-trip estimate behind routed liveness, on explicit clocks. */
class PeerLivenessTest {
    private static final long PROBE = TimeUnit.SECONDS.toNanos(2);
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void beforeAnyRoundTripTheLimitIsThreeProbeIntervals() {
        PeerLiveness p = new PeerLiveness(0);
        assertThat(p.smoothedRoundTripNanos()).isEqualTo(-1);
        assertThat(p.deadAfterNanos(PROBE, 3)).isEqualTo(3 * PROBE);
    }

    @Test
    void aFastPathKeepsTheProbeIntervalAsItsTimeout() {
        PeerLiveness p = new PeerLiveness(0);
        RoutedConnection c = connection();
        long now = 0;
        for (int i = 0; i < 10; i++) {
            now += PROBE * 2;
            p.pinged(c, now);
            p.ponged(c, now + MS);
        }
        assertThat(p.smoothedRoundTripNanos()).isBetween(MS - 1, MS + 1);
        assertThat(p.deadAfterNanos(PROBE, 3)).isEqualTo(3 * PROBE);
    }

    @Test
    void aPathThatGrowsSlowStretchesTheLimitWithIt() {
        PeerLiveness p = new PeerLiveness(0);
        RoutedConnection c = connection();
        long now = 0;
        // Round trips of 50 ms, then of 3 s as the path fills: PONGs queued behind data.
        for (long rtt : new long[] {50 * MS, 50 * MS, 3000 * MS, 3000 * MS, 3000 * MS}) {
            now += 4 * PROBE;
            p.pinged(c, now);
            p.ponged(c, now + rtt);
        }
        long limit = p.deadAfterNanos(PROBE, 3);
        assertThat(limit)
                .as("a 3-s round trip must not be read as death after 6 s of silence")
                .isGreaterThan(3 * 3000 * MS);
        assertThat(p.smoothedRoundTripNanos()).isBetween(1000 * MS, 3000 * MS);
    }

    @Test
    void aPongForAPingGivenUpOnOrAnAmbiguousOneMeasuresNothing() {
        PeerLiveness p = new PeerLiveness(0);
        RoutedConnection first = connection();
        RoutedConnection second = connection();
        p.pinged(first, 0);
        p.pinged(second, 10 * PROBE); // the first was given up on
        p.ponged(first, 10 * PROBE + MS); // its late answer would measure 1 ms from the wrong PING
        assertThat(p.smoothedRoundTripNanos()).isEqualTo(-1);
        p.pinged(second, 11 * PROBE); // again on the same connection: whose PONG comes next is unknown
        p.ponged(second, 11 * PROBE + 5 * MS);
        assertThat(p.smoothedRoundTripNanos())
                .as("Karn: no sample from an ambiguous PONG")
                .isEqualTo(-1);
        p.pinged(second, 20 * PROBE);
        p.ponged(second, 20 * PROBE + 7 * MS);
        assertThat(p.smoothedRoundTripNanos()).isEqualTo(7 * MS);
    }

    @Test
    void aSilentPeerIsPingedEveryIntervalABusyOneEveryFewAndNeverTwiceWhileAPongIsDue() {
        PeerLiveness p = new PeerLiveness(0);
        RoutedConnection c = connection();
        assertThat(p.shouldPing(0, PROBE, PROBE / 2, 4))
                .as("busy, just started")
                .isFalse();
        assertThat(p.shouldPing(0, PROBE, 3 * PROBE, 4))
                .as("busy for 3 intervals")
                .isFalse();
        assertThat(p.shouldPing(0, PROBE, 5 * PROBE, 4))
                .as("busy for 5 intervals: time to measure")
                .isTrue();
        p.pinged(c, 5 * PROBE);
        assertThat(p.shouldPing(3 * PROBE, PROBE, 5 * PROBE + PROBE / 2, 4))
                .as("silent, but a PING is due back")
                .isFalse();
        p.ponged(c, 5 * PROBE + 10 * MS);
        assertThat(p.shouldPing(3 * PROBE, PROBE, 6 * PROBE + MS, 4))
                .as("silent for a while, last PING an interval ago")
                .isTrue();
        p.pinged(c, 6 * PROBE + MS);
        assertThat(p.shouldPing(4 * PROBE, PROBE, 8 * PROBE, 4))
                .as("the PING in flight is overdue: try again")
                .isTrue();
    }

    /** Identity is all PeerLiveness looks at; a connection that was never opened will do. */
    private static RoutedConnection connection() {
        return new RoutedConnection(
                null,
                new RoutedConnections.Key(io.traverse.identity.NodeId.of("a"), 1),
                io.traverse.identity.NodeId.of("b"),
                true,
                80,
                1024,
                0);
    }
}
