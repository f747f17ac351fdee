package io.traverse.splice;

import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * What this node learnt about its NAT from two echoes, kept for a while: a NAT's behaviour does
 * not change from one connection to the next, and a preserving one needs no echo per connection.
 *
 * @param hub           the hub that echoed: the node's own hub, or another hub of the network that
 *                      sees its public side when its own sees only its private one
 * @param linkHub       the node's own hub (its link's address) when the profile was learnt
 * @param publicAddress the address the hub saw
 * @param behaviour     how the NAT maps ports
 * @param hubRttNanos   the round trip to the node's own hub (the faster echo's TCP connect there;
 *                      the side channel runs through that hub)
 * @param measuredAt    System.nanoTime() of the measurement
 */
record NatProfile(
        InetSocketAddress hub,
        InetSocketAddress linkHub,
        InetAddress publicAddress,
        PortPrediction.Behaviour behaviour,
        long hubRttNanos,
        long measuredAt) {
    /** How long a profile is trusted. */
    static final long TRUSTED_NANOS = 60_000_000_000L;

    boolean isFresh(long now) {
        return now - measuredAt < TRUSTED_NANOS;
    }

    /** True if a peer elsewhere could send to what the hub saw. */
    boolean seenPublic() {
        return PublicEchoHubs.isPublic(publicAddress);
    }

    /** True if another hub than the node's own echoed. */
    boolean echoedElsewhere() {
        return !hub.equals(linkHub);
    }
}
