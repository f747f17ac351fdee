package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReconnectBackoffTest {
    @Test
    void doublesWithJitterUpToTheMaximumAndResets() {
        ReconnectBackoff b = new ReconnectBackoff(Duration.ofMillis(500), Duration.ofSeconds(30));
        long expectedMax = 500;
        for (int i = 0; i < 12; i++) {
            Duration d = b.next();
            assertThat(d.toMillis()).as("attempt %d", i).isBetween(expectedMax / 2 - 1, expectedMax);
            expectedMax = Math.min(30_000, expectedMax * 2);
        }
        b.reset();
        assertThat(b.next().toMillis()).isBetween(249L, 500L);
    }

    @Test
    void delaysAreSpreadNotLockstep() {
        ReconnectBackoff b = new ReconnectBackoff(Duration.ofSeconds(1), Duration.ofSeconds(1));
        long min = Long.MAX_VALUE;
        long max = 0;
        for (int i = 0; i < 200; i++) {
            long d = b.next().toMillis();
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        assertThat(max - min).isGreaterThan(200);
    }

    @Test
    void refusesNonsense() {
        assertThatThrownBy(() -> new ReconnectBackoff(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReconnectBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
