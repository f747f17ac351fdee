package io.traverse.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.cli.demo.PairResult.Expectation;
import io.traverse.cli.demo.RealNetworkDemo.RealNode;
import io.traverse.testbed.Firewall;
import io.traverse.testbed.HostCapabilities;
import io.traverse.testbed.NatMode;
import io.traverse.testbed.Testbed;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The demo's real network: sites in network namespaces behind real NAT. Needs root (skipped
 * otherwise); as root, {@code ip}, {@code nft} and miniupnpd must be there (Debian packages
 * iproute2, nftables, miniupnpd-nftables), because CI runs this as root and a skipped real network
 * there would hide a broken setup.
 */
class RealNetworkDemoTest {
    @Test
    void theTopologyPredictsSpliceBetweenPortKeepingNatsAndTheMappedPortOtherwise() {
        RealNode k = RealNetworkDemo.KAPPA;
        RealNode l = RealNetworkDemo.LAMBDA;
        RealNode m = RealNetworkDemo.MU;
        assertThat(RealNetworkDemo.expectation(k, l)).isEqualTo(Expectation.SPLICE);
        assertThat(RealNetworkDemo.expectation(l, k)).isEqualTo(Expectation.SPLICE);
        assertThat(RealNetworkDemo.expectation(k, m))
                .as("m's router mapped its port")
                .isEqualTo(Expectation.DIRECT);
        assertThat(RealNetworkDemo.expectation(m, l))
                .as("l dials m back at its mapped port")
                .isEqualTo(Expectation.REVERSE);
        RealNode randomising =
                new RealNode("nu", "site N", "10.0.4.0/24", NatMode.MASQUERADE_RANDOM, Firewall.dropInbound(), false);
        assertThat(RealNetworkDemo.expectation(k, randomising))
                .as("a port-randomising NAT cannot be spliced")
                .isEqualTo(Expectation.ROUTED);
        assertThat(RealNetworkDemo.topology(false)).containsExactly(k, l);
    }

    @Test
    @Timeout(180)
    void asRootTheDemoSplicesThroughRealNatAndReachesANodeThroughItsMappedPortAndLeavesNoNamespace() throws Exception {
        HostCapabilities host = HostCapabilities.probe();
        Assumptions.assumeTrue(host.isRoot(), "Skipped: the demo's real network needs root (CI runs this as root)");
        assertThat(host.missingTools()).as("tools the real network needs").isEmpty();
        assertThat(RealNetworkDemo.portMappingMissing())
                .as("miniupnpd (Debian package miniupnpd-nftables)")
                .isEmpty();

        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int exit;
        try (PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
            exit = new LoopbackDemo(Duration.ofMillis(800), 50, 1 << 20, 1 << 20, false, false, true).run(out);
        }
        String text = buffer.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(text).isZero();
        assertThat(text).contains("Real network: 3 sites in network namespaces behind real NAT");
        assertThat(text)
                .containsPattern(
                        "mu \\(traverse.portmap=true\\) asked miniupnpd for a mapping and advertises 11\\.200\\.0\\.1:\\d+;"
                                + " miniupnpd's rules: \\d+ -> 10\\.0\\.3\\.2:\\d+");
        // The first splice mostly loses its race to routed; splice, cached once it gets through, makes the next one.
        assertThat(text).containsPattern("kappa -> lambda +(routed>)?splice .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("lambda -> kappa +(routed>)?splice .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("kappa -> mu +direct .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("lambda -> mu +direct .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("mu -> kappa +reverse .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("mu -> lambda +reverse .* 1 MiB sha256 ok");
        assertThat(text)
                .containsPattern(
                        "36 pairs: 36 connected \\(11 dialled back, 0 through SSH, 2 spliced( \\(\\d after a first"
                                + " relayed connection\\))?, 4 relayed by hubs\\)")
                .doesNotContain("UNEXPECTED");
        String ours = Testbed.NAME_PREFIX + ProcessHandle.current().pid() + "-";
        assertThat(namespaces()).as("namespaces after the demo").noneMatch(n -> n.startsWith(ours));
    }

    private static List<String> namespaces() throws Exception {
        Process p = new ProcessBuilder(HostCapabilities.probe().tool("ip"), "netns", "list")
                .redirectErrorStream(true)
                .start();
        String listing = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return listing.lines()
                .map(l -> l.trim().split("\\s+")[0])
                .filter(s -> !s.isEmpty())
                .toList();
    }
}
