package io.traverse.splice;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * When each side fires in each round. What gets through reliably is an order: a SYN that meets a
 * router which drops it leaves its own conntrack entry waiting, so the peer's SYN, sent a moment
 * later, is let in as the answer — but a SYN that meets a router which rejects comes back as an
 * RST and leaves both entries closed for that pair of ports. Neither side knows which kind its
 * peer's router is, so both orders are tried at once, on different ports: in even rounds the
 * source fires first, in odd rounds the target. Every round has its own ports, so a closed entry
 * of one round is in no other's way.
 *
 * <p>No clocks are compared. Each side counts from an instant it sees itself: the target from
 * sending its answer, the source from the answer's arrival, which is later by the answer's way.
 * So in the target's rounds (odd) the target's SYN is out before the source's, by causality (the
 * target answers only once its first SYN is on its way); in the source's rounds (even) the target
 * waits a lead that covers the answer's way with room to spare (the fire delay: the source's
 * measured round trip, a whole one, plus the target's to its hub). Rounds 2-3 are the same pair
 * again a few milliseconds later, with twice the lead, for when jitter beat the first pair.
 */
final class SpliceSchedule {
    /** Rounds with fresh ports, for NATs that keep ports. */
    static final int ROUNDS = 4;
    /** Between one pair of rounds (one of each order) and the next. */
    static final long PAIR_INTERVAL_NANOS = TimeUnit.MICROSECONDS.toNanos(3_000);

    private SpliceSchedule() {
    }

    /** The least fire delay: time for the answer to reach the source, which fires on its arrival. */
    static final long MIN_FIRE_DELAY_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

    /** The target's lead in the rounds the source fires first: the answer's way to the source, twice over. */
    static long fireDelayNanos(long sourceHubRttNanos, long targetHubRttNanos) {
        return Math.max(MIN_FIRE_DELAY_NANOS, 2 * PortPrediction.fireDelayNanos(sourceHubRttNanos, targetHubRttNanos));
    }

    /** True if the source fires first in {@code round}. */
    static boolean sourceFirst(int round) {
        return round % 2 == 0;
    }

    /**
     * When one side fires in {@code round}, on its own clock.
     *
     * @param referenceNanos the target's: when it sends its answer; the source's: when the answer arrived
     * @param fireDelayNanos the target's lead in the source's rounds (from the answer)
     */
    static long fireAt(long referenceNanos, int round, boolean source, long fireDelayNanos) {
        int pair = round / 2;
        long pairStart = referenceNanos + pair * PAIR_INTERVAL_NANOS;
        if (source || !sourceFirst(round)) {
            return pairStart;
        }
        return pairStart + (pair + 1) * fireDelayNanos;
    }

    /**
     * This side's rounds: its local port of each round against the peer's ports of the same
     * round, as many rounds as both sides offered.
     */
    static List<SimultaneousOpen.Round> rounds(InetAddress bindAddress, List<Integer> localPorts, SpliceMessages.PublicEndpoint peer,
            long referenceNanos, boolean source, long fireDelayNanos) {
        int count = Math.min(localPorts.size(), peer.roundPorts().size());
        List<SimultaneousOpen.Round> rounds = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            List<InetSocketAddress> remotes = new ArrayList<>();
            for (int port : peer.ports(k)) {
                remotes.add(new InetSocketAddress(peer.address(), port));
            }
            rounds.add(new SimultaneousOpen.Round(new InetSocketAddress(bindAddress, localPorts.get(k)), remotes,
                    fireAt(referenceNanos, k, source, fireDelayNanos)));
        }
        return rounds;
    }
}
