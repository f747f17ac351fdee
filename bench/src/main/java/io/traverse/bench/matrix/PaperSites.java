package io.traverse.bench.matrix;

import io.traverse.testbed.Reach;
import io.traverse.testbed.SiteLine;
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
     * Not in the paper (issue 14): a site whose only way out is a real HTTP proxy allowing CONNECT
     * (tinyproxy on its router), nothing in; one machine, its node, no hub: the node links through
     * the proxy to DAS3-V's hub, and every pair with it is routed.
     */
    public static final SiteLine PROXY_ONLY = SiteLine.of("proxy-only", Reach.PROXY_ONLY, Reach.ON_FRONTEND, "10.3.0.0/24");

    /** Table 2 and then {@link #PROXY_ONLY}: the matrix that {@code bench/run-matrix.sh} and the CI test run. */
    public static final List<SiteLine> TABLE_2_AND_PROXY_ONLY = java.util.stream.Stream.concat(TABLE_2.stream(),
            java.util.stream.Stream.of(PROXY_ONLY)).toList();

    private PaperSites() {
    }

    /** True if {@code site} is one of the paper's six (Table 2). */
    public static boolean inThePaper(String site) {
        return TABLE_2.stream().anyMatch(s -> s.name().equals(site));
    }
}
