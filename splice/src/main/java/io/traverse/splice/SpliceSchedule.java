package io.traverse.splice;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * When each side fires in each round. Both sides fire at once only by luck on fast links; what
 * gets through reliably is an order: a SYN that meets a router which drops it leaves its own
 * conntrack entry waiting, so the peer's SYN, sent a moment later, is let in as the answer —
 * but a SYN that meets a router which rejects comes back as an RST and leaves both entries closed
 * for that pair of ports. Neither side knows which kind its peer's router is, so the rounds take
 * turns: in even rounds the source fires first, in odd rounds the target, the other a lead later
 * (short first, longer in later rounds, in case the clocks agree less well than hoped). Every
 * round uses fresh ports, so a closed entry of an earlier round is in no later one's way.
 */
final class SpliceSchedule {
    /** Rounds with fresh ports, for NATs that keep ports. */
    static final int ROUNDS = 4;
    static final long ROUND_INTERVAL_NANOS = TimeUnit.MICROSECONDS.toNanos(3_000);
    static final long SHORT_LEAD_NANOS = TimeUnit.MICROSECONDS.toNanos(300);
    static final long LONG_LEAD_NANOS = TimeUnit.MICROSECONDS.toNanos(1_000);

    private SpliceSchedule() {
    }

    /** The least fire delay: time for the answer to reach the source, which aligns its rounds to the target's. */
    static final long MIN_FIRE_DELAY_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

    /** How long the target waits after answering before its rounds start. */
    static long fireDelayNanos(long sourceHubRttNanos, long targetHubRttNanos) {
        return Math.max(MIN_FIRE_DELAY_NANOS, 2 * PortPrediction.fireDelayNanos(sourceHubRttNanos, targetHubRttNanos));
    }

    /**
     * The source's start, on its clock, matching the target's: the target started its fire delay
     * when it sent the answer, which took half the measured round trip (less the target's
     * processing) to arrive.
     */
    static long sourceStartNanos(long askedNanos, long arrivedNanos, long processingNanos, long fireDelayNanos) {
        long oneWay = Math.max(0, arrivedNanos - askedNanos - processingNanos) / 2;
        return arrivedNanos - oneWay + fireDelayNanos;
    }

    /** True if the source fires first in {@code round}. */
    static boolean sourceFirst(int round) {
        return round % 2 == 0;
    }

    /** How long the second side waits after the first in {@code round}. */
    static long leadNanos(int round) {
        return round < 2 ? SHORT_LEAD_NANOS : LONG_LEAD_NANOS;
    }

    /**
     * When one side fires in {@code round}, on its own clock.
     *
     * @param startNanos the agreed instant on this side's clock: the source's when the answer
     *        arrived, the target's when it sent the answer plus the answer's way to the source
     */
    static long fireAt(long startNanos, int round, boolean source) {
        boolean first = sourceFirst(round) == source;
        return startNanos + round * ROUND_INTERVAL_NANOS + (first ? 0 : leadNanos(round));
    }

    /**
     * This side's rounds: its local port of each round against the peer's ports of the same
     * round, as many rounds as both sides offered.
     */
    static List<SimultaneousOpen.Round> rounds(InetAddress bindAddress, List<Integer> localPorts, SpliceMessages.PublicEndpoint peer,
            long startNanos, boolean source) {
        int count = Math.min(localPorts.size(), peer.roundPorts().size());
        List<SimultaneousOpen.Round> rounds = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            List<InetSocketAddress> remotes = new ArrayList<>();
            for (int port : peer.ports(k)) {
                remotes.add(new InetSocketAddress(peer.address(), port));
            }
            rounds.add(new SimultaneousOpen.Round(new InetSocketAddress(bindAddress, localPorts.get(k)), remotes,
                    fireAt(startNanos, k, source)));
        }
        return rounds;
    }
}
