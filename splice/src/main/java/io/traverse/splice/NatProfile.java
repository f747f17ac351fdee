package io.traverse.splice;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * What this node learnt about its NAT from two echoes, kept for a while: a NAT's behaviour does
 * not change from one connection to the next, and a preserving one needs no echo per connection.
 *
 * @param hub           the hub that echoed
 * @param publicAddress the address the hub saw
 * @param behaviour     how the NAT maps ports
 * @param hubRttNanos   the round trip to the hub (the faster echo's TCP connect)
 * @param measuredAt    System.nanoTime() of the measurement
 */
record NatProfile(InetSocketAddress hub, InetAddress publicAddress, PortPrediction.Behaviour behaviour, long hubRttNanos, long measuredAt) {
    /** How long a profile is trusted. */
    static final long TRUSTED_NANOS = 60_000_000_000L;

    boolean isFresh(long now) {
        return now - measuredAt < TRUSTED_NANOS;
    }
}
