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
    /** Rounds in which the two sides take turns to fire first ({@link #fireAt}), with fresh ports each. */
    static final int TURN_ROUNDS = 4;
    /**
     * Rounds with fresh ports, for NATs that keep ports: the turns, then the primed rounds
     * ({@link #PRIME_TTLS}). A node that offers only the turns (before the primed rounds) splices
     * with the turns alone: each side plays as many rounds as both offered.
     */
    static final int ROUNDS = TURN_ROUNDS + 2;
    /** Between one pair of rounds (one of each order) and the next. */
    static final long PAIR_INTERVAL_NANOS = TimeUnit.MICROSECONDS.toNanos(3_000);

    private SpliceSchedule() {}

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
     * The TTL of the SYNs with which the primed rounds (the last two) open this side's NAT
     * mappings ({@link LowTtlSyns}): enough to pass its own NATs and die at a router before the
     * peer's. 3 passes a home router and a carrier NAT right behind it and dies at the first
     * router beyond (behind one NAT, at the second); 2 passes one NAT and dies at the first
     * router. A SYN that dies too early opens no mapping at the outer NAT. One that reaches the peer's NAT fails its round: it
     * draws a reset, or, once the peer's mapping is open, it leaves the peer's NAT holding the
     * wrong sequence number (Linux's connection tracking checks them). So where no router stands
     * between the two NATs (two sites on one network), only the other rounds can get through.
     */
    static final int[] PRIME_TTLS = {3, 2};

    /** The TTL of this side's priming SYNs in {@code round}, or 0 if the round does not prime. */
    static int primeTtl(int round) {
        int primed = round - TURN_ROUNDS;
        return primed >= 0 && primed < PRIME_TTLS.length ? PRIME_TTLS[primed] : 0;
    }

    /**
     * This side's rounds: its local port of each round against the peer's ports of the same
     * round, as many rounds as both sides offered.
     *
     * <p>If {@code canPrime}, the rounds after the turns ({@link #PRIME_TTLS}) are primed: they
     * start as soon as both of the first two turns have been refused on this side
     * ({@link SimultaneousOpen#GATE_TURNS}), the sign that the NATs reset. Where a NAT drops, the
     * turns get through and the primed rounds stay quiet: between two NATs with no router between
     * them a small TTL does not die on the way, and a primed round would fail or worse. A primed
     * round connects right after a SYN of a small TTL ({@link LowTtlSyns}), which opens this
     * side's NATs, and again, after a fresh one, a few milliseconds after each reset: that is the
     * peer's NAT, which the peer has not opened yet. The first connect after the peer's NATs are
     * open gets through to the peer's host, which drops it silently ({@link SilentPort}) until
     * its own connect, which completes the simultaneous open. No lead and no reckoning of the
     * answer's way is needed. The last turn (round 3) connects again after each reset too, in
     * case the two sides' SYNs cross. Where no TTL can be set, rounds 4-5 are turns as well.
     */
    static List<SimultaneousOpen.Round> rounds(
            InetAddress bindAddress,
            List<Integer> localPorts,
            SpliceMessages.PublicEndpoint peer,
            long referenceNanos,
            boolean source,
            long fireDelayNanos,
            boolean canPrime) {
        int count = Math.min(localPorts.size(), peer.roundPorts().size());
        List<SimultaneousOpen.Round> rounds = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            List<InetSocketAddress> remotes = new ArrayList<>();
            for (int port : peer.ports(k)) {
                remotes.add(new InetSocketAddress(peer.address(), port));
            }
            InetSocketAddress local = new InetSocketAddress(bindAddress, localPorts.get(k));
            rounds.add(
                    canPrime && primeTtl(k) > 0
                            ? new SimultaneousOpen.Round(local, remotes, referenceNanos, primeTtl(k))
                            : new SimultaneousOpen.Round(
                                    local,
                                    remotes,
                                    fireAt(referenceNanos, k, source, fireDelayNanos),
                                    k == Math.min(count, TURN_ROUNDS) - 1));
        }
        return rounds;
    }
}
