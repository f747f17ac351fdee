package io.traverse.bench.matrix;

import io.traverse.testbed.Reach;
import io.traverse.testbed.SiteLine;
import io.traverse.testbed.WanLatency;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The network as users meet it today rather than as the paper's clusters did: a
 * public host, a home behind a carrier-grade NAT (ports kept, both NATs reset unsolicited SYNs),
 * a proxy-only office, a phone-like site behind a port-randomising NAT, a lab behind a port-keeping
 * NAT that resets, and a cluster whose node is non-routed behind a public frontend. Kernel sockets
 * are possible for 8 ordered pairs: 3 direct (home, mobile and lab to public), 3 reverse (public
 * to them) and 2 splice (lab and home, both ways); the rest must be routed.
 */
public final class EverydaySites {
    public static final List<SiteLine> SITES = List.of(
            SiteLine.of("public", Reach.OPEN, Reach.ON_FRONTEND, "10.10.0.0/24"),
            SiteLine.of("home", Reach.NAT_BEHIND_CARRIER, Reach.ON_FRONTEND, "192.168.1.0/24"),
            SiteLine.of("proxy-only", Reach.PROXY_ONLY, Reach.ON_FRONTEND, "10.3.0.0/24"),
            SiteLine.of("mobile", Reach.NAT_RANDOM_PORTS, Reach.ON_FRONTEND, "192.168.2.0/24"),
            SiteLine.of("lab", Reach.NAT, Reach.NAT, "10.20.0.0/24"),
            SiteLine.of("cluster", Reach.OPEN, Reach.NON_ROUTED, "10.0.0.0/24"));

    /**
     * One-way access latency per site (a data centre 1 ms, a lab 3 ms, a cluster 5 ms, an office 8 ms,
     * a home on a carrier's network 12 ms, a mobile network 20 ms): round trips of 8-64 ms between sites.
     */
    public static final WanLatency ACCESS_LATENCY = WanLatency.access(Map.of(
            "public",
            Duration.ofMillis(1),
            "lab",
            Duration.ofMillis(3),
            "cluster",
            Duration.ofMillis(5),
            "proxy-only",
            Duration.ofMillis(8),
            "home",
            Duration.ofMillis(12),
            "mobile",
            Duration.ofMillis(20)));

    private EverydaySites() {}
}
