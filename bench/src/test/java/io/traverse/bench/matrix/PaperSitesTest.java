package io.traverse.bench.matrix;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.testbed.ExpectedPath;
import io.traverse.testbed.SiteLine;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The expectation rule, applied to the six site lines, chooses what the paper's Table 3 shows, and
 * for Hiroshi's node what its sshd adds: in the paper only the hubs used the SSH tunnel (Hiroshi's
 * pairs are all routed in Table 3); here every node that dials out also has a tunnel rule for
 * Hiroshi's range, so it reaches Hiroshi's node by direct (its first connection may be routed, while
 * the SSH login runs), and Hiroshi's node reaches them by reverse: they dial it back through the
 * same tunnel (again the first connection may be routed).
 */
class PaperSitesTest {
    /** Table 3's annotations, "source>target": the 6 direct and 4 reverse pairs; the other 20 are routed. */
    private static final Map<String, String> PAPER = Map.of(
            "das3-v>das3-d",
            "direct",
            "das3-d>das3-v",
            "direct",
            "rockstar>das3-v",
            "direct",
            "rockstar>das3-d",
            "direct",
            "desktop>das3-v",
            "direct",
            "desktop>das3-d",
            "direct",
            "das3-v>rockstar",
            "reverse",
            "das3-d>rockstar",
            "reverse",
            "das3-v>desktop",
            "reverse",
            "das3-d>desktop",
            "reverse");
    /**
     * Through Hiroshi's sshd: from every site whose node dials out (all but Grid5000's non-routed
     * one), and the other way by the same nodes dialling Hiroshi's node back through it.
     */
    private static final Map<String, String> THROUGH_SSH = Map.of(
            "das3-v>hiroshi",
            "direct",
            "das3-d>hiroshi",
            "direct",
            "rockstar>hiroshi",
            "direct",
            "desktop>hiroshi",
            "direct",
            "hiroshi>das3-v",
            "reverse",
            "hiroshi>das3-d",
            "reverse",
            "hiroshi>rockstar",
            "reverse",
            "hiroshi>desktop",
            "reverse");

    /**
     * Where the paper had routed and both nodes dial out: Rockstar's node has a public address behind
     * a dropping firewall, the desktop a port-keeping NAT, and the DAS-3 hubs echo their public sides.
     */
    private static final Map<String, String> SPLICED =
            Map.of("rockstar>desktop", "splice", "desktop>rockstar", "splice");

    @Test
    void theRuleChoosesThePapersModulesForEveryPair() {
        Map<String, String> derived = new TreeMap<>();
        int routed = 0;
        for (SiteLine source : PaperSites.TABLE_2) {
            for (SiteLine target : PaperSites.TABLE_2) {
                if (source == target) {
                    continue;
                }
                String module = ExpectedPath.expected(source, target).module();
                if (module.equals("routed")) {
                    routed++;
                } else {
                    derived.put(source.name() + ">" + target.name(), module);
                }
            }
        }
        Map<String, String> expected = new TreeMap<>(PAPER);
        expected.putAll(THROUGH_SSH);
        expected.putAll(SPLICED);
        assertThat(derived).isEqualTo(expected);
        assertThat(routed).isEqualTo(10);
    }

    @Test
    void plainSocketsGetThroughExactlyWhereThePaperHadThem() {
        TreeSet<String> plain = new TreeSet<>();
        for (SiteLine source : PaperSites.TABLE_2) {
            for (SiteLine target : PaperSites.TABLE_2) {
                if (source != target && ExpectedPath.plainSocketWorks(source, target)) {
                    plain.add(source.name() + ">" + target.name());
                }
            }
        }
        TreeSet<String> direct = new TreeSet<>();
        PAPER.forEach((pair, module) -> {
            if (module.equals("direct")) {
                direct.add(pair);
            }
        });
        assertThat(plain).isEqualTo(direct).hasSize(6);
    }

    /**
     * The proxy-only site (not in the paper) neither accepts from outside nor dials out
     * except through its proxy: every pair with it is routed, both ways, and no plain socket gets
     * through; its node reaches even the SSH-only and non-routed sites' nodes by routed.
     */
    @Test
    void theProxyOnlySiteIsReachedAndReachesEveryoneRouted() {
        int pairs = 0;
        for (SiteLine other : PaperSites.TABLE_2) {
            for (SiteLine[] pair : new SiteLine[][] {{PaperSites.PROXY_ONLY, other}, {other, PaperSites.PROXY_ONLY}}) {
                assertThat(ExpectedPath.expected(pair[0], pair[1]).module())
                        .as(pair[0].name() + " -> " + pair[1].name())
                        .isEqualTo("routed");
                assertThat(ExpectedPath.expected(pair[0], pair[1]).firstMayBe()).isEmpty();
                assertThat(ExpectedPath.plainSocketWorks(pair[0], pair[1]))
                        .as(pair[0].name() + " -> " + pair[1].name())
                        .isFalse();
                pairs++;
            }
        }
        assertThat(pairs).isEqualTo(12);
        assertThat(PaperSites.TABLE_2_AND_PROXY_ONLY).hasSize(7).endsWith(PaperSites.PROXY_ONLY);
        assertThat(PaperSites.inThePaper("proxy-only")).isFalse();
        assertThat(PaperSites.PROXY_ONLY.runsHub()).isFalse();
    }
}
