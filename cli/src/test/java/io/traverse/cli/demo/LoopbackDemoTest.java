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
        assertThat(text).contains("30 pairs: 30 connected (9 dialled back, 4 relayed by hubs), 0 refused, 0 timed out; "
                + "every pair behaved as its firewalls predict");
        assertThat(text).containsPattern("alpha -> epsilon +direct .* 1 MiB sha256 ok");
        // gamma refuses site B, and delta drops it: both are reached by dialling back
        assertThat(text).containsPattern("beta -> gamma +reverse .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("alpha -> delta +reverse .* 1 MiB sha256 ok");
        // zeta refuses everyone and gamma refuses zeta, delta drops zeta: the hubs relay, through two of them
        assertThat(text).containsPattern("zeta -> gamma +routed .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("delta -> zeta +routed .* 1 MiB sha256 ok");
        assertThat(text).doesNotContain("UNEXPECTED");
    }
}
