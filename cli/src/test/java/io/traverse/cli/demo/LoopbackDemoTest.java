package io.traverse.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class LoopbackDemoTest {
    @Test
    @Timeout(60)
    void everyPairBehavesAsItsFirewallsPredict() throws Exception {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int exit;
        try (PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
            exit = new LoopbackDemo(Duration.ofMillis(500), 50, 1 << 20, 1 << 20).run(out);
        }
        String text = buffer.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(text).isZero();
        assertThat(text).contains("30 pairs: 26 connected (9 dialled back), 2 refused, 2 timed out; "
                + "every pair behaved as its firewalls predict");
        assertThat(text).containsPattern("alpha -> epsilon +direct .* 1 MiB sha256 ok");
        // gamma refuses site B, and delta drops it: both are reached by dialling back
        assertThat(text).containsPattern("beta -> gamma +reverse .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("alpha -> delta +reverse .* 1 MiB sha256 ok");
        // zeta refuses everyone and gamma refuses zeta: neither can reach the other
        assertThat(text).containsPattern("zeta -> gamma +refused .*firewall rule deny:all denies source 127\\.0\\.5\\.1.*could not dial back");
        assertThat(text).containsPattern("delta -> zeta +timeout .*timed out");
        assertThat(text).doesNotContain("UNEXPECTED");
    }
}
