package io.traverse.hub.link;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedialBackoffTest {
    @Test
    void doublesFromTheMinimumToTheMaximumWithJitterBelow() {
        RedialBackoff backoff = new RedialBackoff(Duration.ofMillis(500), Duration.ofSeconds(30));
        long[] ceilings = {500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000};
        for (long ceiling : ceilings) {
            long delay = backoff.nextDelayMillis();
            assertThat(delay).isBetween(ceiling / 2, ceiling);
        }
        for (int i = 0; i < 100; i++) {
            assertThat(backoff.nextDelayMillis()).isBetween(15_000L, 30_000L);
        }
        backoff.reset();
        assertThat(backoff.nextDelayMillis()).isBetween(250L, 500L);
        assertThat(backoff.firstDelayMillis()).isBetween(250L, 500L);
    }
}
