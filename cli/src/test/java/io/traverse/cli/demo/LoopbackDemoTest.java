package io.traverse.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.cli.demo.PairResult.Expectation;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LoopbackDemoTest {
    private static String run(LoopbackDemo demo, int[] exit) throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
            exit[0] = demo.run(out);
        }
        return buffer.toString(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void everyPairBehavesAsItsFirewallsPredict() throws Exception {
        int[] exit = new int[1];
        String text = run(new LoopbackDemo(Duration.ofMillis(500), 50, 1 << 20, 1 << 20, false, false, false), exit);
        assertThat(exit[0]).as(text).isZero();
        assertThat(text)
                .contains(
                        "30 pairs: 30 connected (9 dialled back, 0 through SSH, 0 spliced, 4 relayed by hubs), 0 refused,"
                                + " 0 timed out; every pair behaved as its firewalls predict");
        assertThat(text).containsPattern("alpha -> epsilon +direct .* 1 MiB sha256 ok");
        // gamma refuses site B, and delta drops it: both are reached by dialling back
        assertThat(text).containsPattern("beta -> gamma +reverse .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("alpha -> delta +reverse .* 1 MiB sha256 ok");
        // zeta refuses everyone and gamma refuses zeta, delta drops zeta: the hubs relay, through two of them
        assertThat(text).containsPattern("zeta -> gamma +routed .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("delta -> zeta +routed .* 1 MiB sha256 ok");
        assertThat(text).contains("real network: skipped: --no-real-network was given");
        assertThat(text).doesNotContain("UNEXPECTED");
    }

    @Test
    @Timeout(120)
    void withTheMachinesSshdANodeOnlySshReachesIsReachedThroughIt() throws Exception {
        boolean ssh = DemoSshd.missing().isEmpty();
        int[] exit = new int[1];
        String text = run(new LoopbackDemo(Duration.ofMillis(800), 50, 1 << 20, 1 << 20), exit);
        assertThat(exit[0]).as(text).isZero();
        assertThat(text).doesNotContain("UNEXPECTED");
        assertThat(text).contains("splice: not on loopback by default");
        if (ssh) {
            assertThat(text)
                    .contains("42 pairs: 42 connected (12 dialled back, 9 through SSH, 0 spliced, 4 relayed by hubs)");
            // eta lets in only its sshd: reached through it, and dialling back through it those it cannot reach
            assertThat(text).containsPattern("alpha -> eta +direct/ssh .* 1 MiB sha256 ok");
            assertThat(text).containsPattern("gamma -> eta +direct/ssh .* 1 MiB sha256 ok");
            assertThat(text).containsPattern("eta -> gamma +reverse/ssh .* 1 MiB sha256 ok");
            assertThat(text).containsPattern("eta -> alpha +direct .* 1 MiB sha256 ok");
        } else {
            assertThat(text).contains("ssh: skipped: ").contains("30 pairs: 30 connected");
        }
    }

    @Test
    void thePredictionFollowsFirewallsSourcesTheSshdAndPublicAddresses() {
        Map<String, DemoNode> nodes = LoopbackDemo.topology(Optional.of("192.0.2.2"), true).stream()
                .collect(Collectors.toMap(DemoNode::name, Function.identity()));
        assertThat(nodes).containsOnlyKeys("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "theta", "eta");
        assertThat(expect(nodes, "zeta", "theta")).isEqualTo(Expectation.SPLICE);
        assertThat(expect(nodes, "theta", "zeta")).isEqualTo(Expectation.SPLICE);
        assertThat(expect(nodes, "alpha", "eta")).isEqualTo(Expectation.DIRECT_SSH);
        assertThat(expect(nodes, "delta", "eta")).isEqualTo(Expectation.DIRECT_SSH);
        assertThat(expect(nodes, "eta", "gamma")).isEqualTo(Expectation.REVERSE_SSH);
        assertThat(expect(nodes, "eta", "zeta"))
                .as("zeta dials loopback from 127.0.0.1, which eta lets in")
                .isEqualTo(Expectation.REVERSE);
        assertThat(expect(nodes, "theta", "eta")).isEqualTo(Expectation.DIRECT);
        assertThat(expect(nodes, "eta", "alpha")).isEqualTo(Expectation.DIRECT);
        // gamma is seen at loopback by its hub: no splice with it, the hubs relay
        assertThat(expect(nodes, "gamma", "theta")).isEqualTo(Expectation.ROUTED);
        assertThat(expect(nodes, "alpha", "theta")).isEqualTo(Expectation.REVERSE);
        // Without the sshd and the public address: the six fixed nodes as they always were.
        List<DemoNode> plain = LoopbackDemo.topology(Optional.empty(), false);
        assertThat(plain).isEqualTo(LoopbackDemo.TOPOLOGY);
        assertThat(LoopbackDemo.expectation(plain.get(2), plain.get(5), false)).isEqualTo(Expectation.ROUTED);
    }

    private static Expectation expect(Map<String, DemoNode> nodes, String from, String to) {
        return LoopbackDemo.expectation(nodes.get(from), nodes.get(to), true);
    }
}
