package io.traverse.routed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
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
        assertThat(new ReceiveBudget(8L << 20, 16 * 1024).share(10_000))
                .as("a window below the floor stays the window")
                .isEqualTo(16 * 1024);
    }

    @Test
    void whenTheBudgetIsSpentAConnectionIsGrantedOnlyTheFloorBeyondWhatItRead() {
        ReceiveBudget budget = new ReceiveBudget(1 << 20, WINDOW);
        assertThat(budget.join(Long.MAX_VALUE)).isEqualTo(WINDOW);
        assertThat(budget.join(256 * 1024))
                .as("the second: its share does not fit, the floor does")
                .isEqualTo(ReceiveBudget.FLOOR);
        assertThat(budget.outstanding()).isEqualTo(WINDOW + ReceiveBudget.FLOOR);
        assertThat(budget.topUp(500_000, 600_000))
                .as("never below what was granted")
                .isEqualTo(600_000);
        budget.release(WINDOW);
        budget.leave(ReceiveBudget.FLOOR);
        assertThat(budget.topUp(600_000, 600_000)).isEqualTo(600_000 + WINDOW);
        assertThat(budget.outstanding()).isEqualTo(WINDOW);
        assertThat(budget.limitFor(700_000, 600_000))
                .as("for a connection that left: not counted")
                .isEqualTo(700_000 + WINDOW);
        assertThat(budget.outstanding()).isEqualTo(WINDOW);
    }

    /** Seeded: connections come and go and read at random; what is counted never passes the budget plus the floor each. */
    @Test
    void grantsNeverExceedTheBudgetPlusTheFloorPerConnection() {
        long seed = 21_2026L;
        Random random = new Random(seed);
        ReceiveBudget budget = new ReceiveBudget(4L << 20, WINDOW);
        int max = 200;
        long[] consumed = new long[max];
        long[] granted = new long[max];
        boolean[] open = new boolean[max];
        for (int step = 0; step < 200_000; step++) {
            int i = random.nextInt(max);
            if (!open[i]) {
                open[i] = true;
                consumed[i] = 0;
                granted[i] = budget.join(random.nextBoolean() ? Long.MAX_VALUE : RoutedConnections.BACKLOG_CREDIT);
            } else if (random.nextInt(50) == 0) {
                open[i] = false;
                budget.leave(granted[i] - consumed[i]);
            } else {
                long read = random.nextInt((int) (granted[i] - consumed[i]) + 1);
                consumed[i] += read;
                budget.release(read);
                long limit = budget.topUp(consumed[i], granted[i]);
                assertThat(limit).isGreaterThanOrEqualTo(granted[i]);
                assertThat(limit - consumed[i])
                        .as("every connection keeps the floor beyond what it read")
                        .isGreaterThanOrEqualTo(Math.min(ReceiveBudget.FLOOR, WINDOW));
                granted[i] = limit;
            }
            long sum = 0;
            for (int k = 0; k < max; k++) {
                sum += open[k] ? granted[k] - consumed[k] : 0;
            }
            assertThat(budget.outstanding())
                    .as("seed %d, step %d", seed, step)
                    .isEqualTo(sum)
                    .isLessThanOrEqualTo(budget.limit() + (long) budget.members() * ReceiveBudget.FLOOR);
        }
    }

    /** Connections that ask at the same instant cannot all fit in the same room: the check and the count are one step. */
    @Test
    void concurrentGrantsDoNotOvershootTogether() throws Exception {
        ReceiveBudget budget = new ReceiveBudget(4L << 20, WINDOW);
        int threads = 16;
        CountDownLatch start = new CountDownLatch(1);
        AtomicLong granted = new AtomicLong();
        Thread[] all = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            all[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 1_000; i++) {
                    long limit = budget.join(Long.MAX_VALUE);
                    granted.addAndGet(limit);
                    budget.leave(limit);
                }
                granted.addAndGet(budget.join(Long.MAX_VALUE));
            });
            all[t].start();
        }
        start.countDown();
        for (Thread t : all) {
            t.join(30_000);
        }
        assertThat(budget.members()).isEqualTo(threads);
        assertThat(budget.outstanding()).isLessThanOrEqualTo(budget.limit() + threads * (long) ReceiveBudget.FLOOR);
    }
}
