package io.traverse.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Seeded: a failure names its seed. */
class ReplayWindowTest {
    @Test
    void eachCountIsAdmittedOnceInAnyOrderWithinTheWindow() {
        for (long seed = 0; seed < 20; seed++) {
            ReplayWindow window = new ReplayWindow();
            List<Long> counts = new ArrayList<>();
            for (long c = 1; c <= 5_000; c++) {
                counts.add(c);
            }
            // Shuffle within blocks narrower than the window: offers made at once, arriving out of order.
            Random r = new Random(seed);
            for (int from = 0; from < counts.size(); from += 500) {
                Collections.shuffle(counts.subList(from, Math.min(counts.size(), from + 500)), r);
            }
            Set<Long> admitted = new HashSet<>();
            for (long c : counts) {
                assertThat(window.admit(c)).as("seed %d count %d", seed, c).isTrue();
                admitted.add(c);
                long replay = counts.get(r.nextInt(counts.size()));
                if (admitted.contains(replay)) {
                    assertThat(window.admit(replay))
                            .as("seed %d replay of %d", seed, replay)
                            .isFalse();
                }
            }
        }
    }

    @Test
    void countsOlderThanTheWindowAndNonPositiveOnesAreRefused() {
        ReplayWindow window = new ReplayWindow();
        assertThat(window.admit(0)).isFalse();
        assertThat(window.admit(-5)).isFalse();
        assertThat(window.admit(10_000)).isTrue();
        assertThat(window.admit(10_000 - ReplayWindow.SIZE)).isFalse(); // too old to tell from a replay
        assertThat(window.admit(10_000 - ReplayWindow.SIZE + 1)).isTrue(); // the oldest still told apart
        assertThat(window.admit(10_000 - ReplayWindow.SIZE + 1)).isFalse();
        // A jump past the whole window forgets everything below it.
        assertThat(window.admit(50_000)).isTrue();
        assertThat(window.admit(49_999)).isTrue();
        assertThat(window.admit(10_000)).isFalse();
    }
}
