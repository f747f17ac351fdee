package io.traverse.routed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The share and the limits a node's receive budget gives; the table's use of it is in RoutedConnectionsTest. */
class ReceiveBudgetTest {
    private static final int WINDOW = 1 << 20;

    @Test
    void aConnectionAloneGetsItsWholeWindowAndManyShareTheBudgetDownToTheFloor() {
        ReceiveBudget budget = new ReceiveBudget(8L << 20, WINDOW);
        assertThat(budget.share(1)).isEqualTo(WINDOW);
        assertThat(budget.share(8)).isEqualTo(WINDOW);
        assertThat(budget.share(32)).isEqualTo(256 * 1024);
        assertThat(budget.share(10_000)).isEqualTo(ReceiveBudget.FLOOR);
        assertThat(new ReceiveBudget(8L << 20, 16 * 1024).share(10_000)).as("a window below the floor stays the window")
                .isEqualTo(16 * 1024);
    }

    @Test
    void whenTheBudgetIsSpentAConnectionIsGrantedOnlyTheFloorBeyondWhatItRead() {
        ReceiveBudget budget = new ReceiveBudget(1 << 20, WINDOW);
        assertThat(budget.limitFor(0, 0, 1)).isEqualTo(WINDOW);
        budget.add(WINDOW);
        assertThat(budget.limitFor(500_000, 600_000, 1)).as("spent: the floor beyond what was read, never below what was granted")
                .isEqualTo(600_000);
        assertThat(budget.limitFor(600_000, 600_000, 1)).isEqualTo(600_000 + ReceiveBudget.FLOOR);
        budget.add(-WINDOW);
        assertThat(budget.limitFor(600_000, 600_000, 1)).isEqualTo(600_000 + WINDOW);
    }

    /** Seeded: connections come and go and read at random; what is granted and not read never passes the budget plus the floor each. */
    @Test
    void grantsNeverExceedTheBudgetPlusTheFloorPerConnection() {
        long seed = 21_2026L;
        Random random = new Random(seed);
        ReceiveBudget budget = new ReceiveBudget(4L << 20, WINDOW);
        int max = 200;
        long[] consumed = new long[max];
        long[] granted = new long[max];
        boolean[] open = new boolean[max];
        int opened = 0;
        for (int step = 0; step < 200_000; step++) {
            int i = random.nextInt(max);
            if (!open[i]) {
                open[i] = true;
                opened++;
                consumed[i] = 0;
                granted[i] = budget.initialGrant(opened);
                budget.add(granted[i]);
            } else if (random.nextInt(50) == 0) {
                open[i] = false;
                opened--;
                budget.add(-(granted[i] - consumed[i]));
            } else {
                long read = random.nextInt((int) (granted[i] - consumed[i]) + 1);
                consumed[i] += read;
                budget.add(-read);
                long limit = budget.limitFor(consumed[i], granted[i], opened);
                assertThat(limit).isGreaterThanOrEqualTo(granted[i]);
                budget.add(limit - granted[i]);
                granted[i] = limit;
            }
            assertThat(budget.outstanding()).as("seed %d, step %d", seed, step)
                    .isLessThanOrEqualTo(budget.limit() + (long) opened * ReceiveBudget.FLOOR);
        }
    }
}
