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

    private PaperSites() {
    }
}
