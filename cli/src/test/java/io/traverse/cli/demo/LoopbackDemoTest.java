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
        assertThat(text).contains("20 pairs: 14 connected, 3 refused, 3 timed out; every pair behaved as its firewalls predict");
        assertThat(text).containsPattern("alpha -> epsilon +direct .* 1 MiB sha256 ok");
        assertThat(text).containsPattern("beta -> gamma +refused .*firewall rule deny:all denies source 127\\.0\\.2\\.1");
        assertThat(text).containsPattern("alpha -> delta +timeout .*timed out");
        assertThat(text).doesNotContain("UNEXPECTED");
    }
}
