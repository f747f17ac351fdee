package io.traverse.bench.matrix;

import io.traverse.testbed.Reach;
import io.traverse.testbed.SiteLine;
import io.traverse.testbed.WanLatency;
import java.util.List;

/**
 * The six sites of the paper's evaluation (Table 2, §4), one line each. DAS3-V, DAS3-D and Grid5000
 * share a private range on purpose, as real clusters do (the identity check sorts out which
 * 10.0.0.3 is meant). Hiroshi is reachable only through SSH, as in the paper: its router lets in
 * only SSH to its frontend's sshd and lets nothing out; other hubs link to its hub, and nodes that
 * dial out reach its node, through that sshd. Its range is its own: an SSH tunnel rule names a
 * network, and one shared with other sites would send their traffic through Hiroshi's sshd too.
 */
public final class PaperSites {
    /** Table 2: name, frontend, nodes, private range. */
    public static final List<SiteLine> TABLE_2 = List.of(
            SiteLine.of("das3-v", Reach.OPEN, Reach.OPEN, "10.0.0.0/24"),
            SiteLine.of("das3-d", Reach.OPEN, Reach.OPEN, "10.0.0.0/24"),
            SiteLine.of("rockstar", Reach.FIREWALLED, Reach.FIREWALLED, "10.1.0.0/24"),
            SiteLine.of("grid5000", Reach.FIREWALLED, Reach.NON_ROUTED, "10.0.0.0/24"),
            SiteLine.of("hiroshi", Reach.SSH_ONLY, Reach.SSH_ONLY, "10.2.0.0/24"),
            SiteLine.of("desktop", Reach.NAT, Reach.ON_FRONTEND, "192.168.1.0/24"));

    /**
     * Not in the paper: a site whose only way out is a real HTTP proxy allowing CONNECT
     * (tinyproxy on its router), nothing in; one machine, its node, no hub: the node links through
     * the proxy to DAS3-V's hub, and every pair with it is routed.
     */
    public static final SiteLine PROXY_ONLY =
            SiteLine.of("proxy-only", Reach.PROXY_ONLY, Reach.ON_FRONTEND, "10.3.0.0/24");

    /** Table 2 and then {@link #PROXY_ONLY}: the matrix that {@code bench/run-matrix.sh} and the CI test run. */
    public static final List<SiteLine> TABLE_2_AND_PROXY_ONLY = java.util.stream.Stream.concat(
                    TABLE_2.stream(), java.util.stream.Stream.of(PROXY_ONLY))
            .toList();

    /**
     * The round trips between the sites as the paper measured them (Table 4: plain sockets where
     * they got through, else Traverse's routed round trip, which the paper says is about ping's;
     * the two directions averaged), as WAN latency for the testbed. The proxy-only site is placed
     * as a second home in the Netherlands: the desktop's round trips, and 20 ms to the desktop.
     */
    public static final WanLatency TABLE_4_ROUND_TRIPS = roundTrips(
            "das3-v",
            "das3-d",
            2.3,
            "das3-v",
            "rockstar",
            166,
            "das3-v",
            "grid5000",
            56,
            "das3-v",
            "hiroshi",
            528,
            "das3-v",
            "desktop",
            14,
            "das3-d",
            "rockstar",
            167,
            "das3-d",
            "grid5000",
            57,
            "das3-d",
            "hiroshi",
            531,
            "das3-d",
            "desktop",
            15,
            "rockstar",
            "grid5000",
            205,
            "rockstar",
            "hiroshi",
            590,
            "rockstar",
            "desktop",
            192,
            "grid5000",
            "hiroshi",
            523,
            "grid5000",
            "desktop",
            46,
            "hiroshi",
            "desktop",
            530,
            "proxy-only",
            "das3-v",
            14,
            "proxy-only",
            "das3-d",
            15,
            "proxy-only",
            "rockstar",
            192,
            "proxy-only",
            "grid5000",
            46,
            "proxy-only",
            "hiroshi",
            530,
            "proxy-only",
            "desktop",
            20);

    private static WanLatency roundTrips(Object... triples) {
        WanLatency latency = WanLatency.access(java.util.Map.of());
        for (int i = 0; i < triples.length; i += 3) {
            double ms = ((Number) triples[i + 2]).doubleValue();
            latency = latency.withRoundTrip(
                    (String) triples[i], (String) triples[i + 1], java.time.Duration.ofNanos(Math.round(ms * 1e6)));
        }
        return latency;
    }

    private PaperSites() {}

    /** True if {@code site} is one of the paper's six (Table 2). */
    public static boolean inThePaper(String site) {
        return TABLE_2.stream().anyMatch(s -> s.name().equals(site));
    }
}
