package io.traverse.testbed;

import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One-way delays (and, optionally, router hops) across a testbed's {@link Internet}, between places: a place is a site (every
 * namespace labelled {@code <site>} or {@code <site>-...} is there) or a public host. Built either
 * from an access latency per place (the delay between two places is the sum of theirs, so the
 * round trip is twice that) or from measured round-trip times per pair, as in the paper's Table 4;
 * pairs not given fall back to the access latencies, and places not named have none.
 */
public final class WanLatency {
    private static final WanLatency NONE = new WanLatency(Map.of(), Map.of(), 0);

    private final Map<String, Duration> access;
    private final Map<List<String>, Duration> roundTrips;
    private final int hops;

    private WanLatency(Map<String, Duration> access, Map<List<String>, Duration> roundTrips, int hops) {
        this.access = Map.copyOf(access);
        this.roundTrips = Map.copyOf(roundTrips);
        this.hops = hops;
    }

    /** No added latency: the internet is a plain bridge. */
    public static WanLatency none() {
        return NONE;
    }

    /** Each place's one-way access latency: the delay between two places is the sum of theirs. */
    public static WanLatency access(Map<String, Duration> oneWayAccess) {
        oneWayAccess.forEach(WanLatency::checkDelay);
        return new WanLatency(oneWayAccess, Map.of(), 0);
    }

    /** This latency, with the round-trip time between {@code a} and {@code b} set to {@code rtt} (both ways). */
    public WanLatency withRoundTrip(String a, String b, Duration rtt) {
        checkDelay(a + "-" + b, rtt);
        Map<List<String>, Duration> more = new LinkedHashMap<>(roundTrips);
        more.put(key(a, b), rtt);
        return new WanLatency(access, more, hops);
    }

    /**
     * This latency, with {@code n} routers between any two places: an IPv4 packet's TTL drops by
     * {@code n} across the internet, and one whose TTL runs out is dropped on the way (as a low-TTL
     * SYN that opens its own NAT's mapping but never reaches the far NAT).
     */
    public WanLatency withHops(int n) {
        if (n < 0 || n > 64) {
            throw new IllegalArgumentException("hops must be 0-64: " + n);
        }
        return new WanLatency(access, roundTrips, n);
    }

    /** Routers between two different places (none within one). */
    public int hops(String a, String b) {
        return a.equals(b) ? 0 : hops;
    }

    /** True if no two places are delayed and no router stands between them: the testbed can use its plain bridge. */
    public boolean isNone() {
        return hops == 0 && !hasDelay();
    }

    /** True if some two places are delayed (router hops alone delay nothing). */
    public boolean hasDelay() {
        return !access.values().stream().allMatch(Duration::isZero)
                || !roundTrips.values().stream().allMatch(Duration::isZero);
    }

    /** The delay a packet from place {@code a} to place {@code b} gets (half the round trip). */
    public Duration oneWay(String a, String b) {
        Duration rtt = roundTrips.get(key(a, b));
        if (rtt != null) {
            return rtt.dividedBy(2);
        }
        return access.getOrDefault(a, Duration.ZERO).plus(access.getOrDefault(b, Duration.ZERO));
    }

    /** The round-trip time between two places, as ping would measure it on an idle network. */
    public Duration roundTrip(String a, String b) {
        return oneWay(a, b).multipliedBy(2);
    }

    /**
     * The place of a namespace: the longest named place that its label is, or starts with followed
     * by {@code -}; otherwise the label itself (a place with no latency of its own).
     */
    public String placeOf(String namespaceLabel) {
        Optional<String> named = java.util.stream.Stream.concat(
                        access.keySet().stream(), roundTrips.keySet().stream().flatMap(List::stream))
                .filter(p -> namespaceLabel.equals(p) || namespaceLabel.startsWith(p + "-"))
                .max(Comparator.comparingInt(String::length));
        return named.orElse(namespaceLabel);
    }

    private static List<String> key(String a, String b) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        return a.compareTo(b) <= 0 ? List.of(a, b) : List.of(b, a);
    }

    private static void checkDelay(String where, Duration d) {
        if (d.isNegative() || d.compareTo(Duration.ofSeconds(10)) > 0) {
            throw new IllegalArgumentException("latency of " + where + " must be 0-10 s: " + d);
        }
    }

    @Override
    public String toString() {
        return isNone()
                ? "WanLatency[none]"
                : "WanLatency[access " + access + ", round trips " + roundTrips
                        + (hops == 0 ? "" : ", " + hops + " hops") + "]";
    }
}
