package io.traverse.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class PeerWarningsTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final PeerWarnings warnings =
            new PeerWarnings(LoggerFactory.getLogger(PeerWarningsTest.class), 3, Duration.ofSeconds(10), now::get);

    @Test
    void aFloodGetsItsBudgetOfLinesPerWindowAndTheRestIsCounted() {
        int atWarn = 0;
        for (int i = 0; i < 1000; i++) {
            if (warnings.warn("Refused node {}: {}", "n" + i, "a replayed offer")) {
                atWarn++;
            }
        }
        assertThat(atWarn).isEqualTo(3);
        assertThat(warnings.unlogged()).isEqualTo(997);

        now.addAndGet(Duration.ofSeconds(9).toNanos()); // same window
        assertThat(warnings.warn("Refused node {}", "late")).isFalse();
        assertThat(warnings.unlogged()).isEqualTo(998);

        now.addAndGet(Duration.ofSeconds(1).toNanos()); // the next window: its first line carries the count
        assertThat(warnings.warn("Refused node {}", "again")).isTrue();
        assertThat(warnings.unlogged()).isZero();
        assertThat(warnings.warn("Refused node {}", "again")).isTrue();
        assertThat(warnings.warn("Refused node {}", "again")).isTrue();
        assertThat(warnings.warn("Refused node {}", "again")).isFalse();
    }

    @Test
    void aQuietPeerIsLoggedEveryTime() {
        for (int i = 0; i < 20; i++) {
            assertThat(warnings.warn("Refused node {}", i)).as("line %d", i).isTrue();
            now.addAndGet(Duration.ofSeconds(4).toNanos()); // 2.5 lines per 10 s window, under the budget of 3
        }
    }

    @Test
    void aBudgetOfNothingIsRefused() {
        assertThatThrownBy(() -> new PeerWarnings(
                        LoggerFactory.getLogger(PeerWarningsTest.class), 0, Duration.ofSeconds(1), now::get))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
