package io.traverse.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class DeadlineWatchdogTest {
    private final DeadlineWatchdog watchdog = DeadlineWatchdog.shared();

    @Test
    void firesOnceTheDeadlinePassesAndNotBefore() throws Exception {
        CountDownLatch fired = new CountDownLatch(1);
        long start = System.nanoTime();
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(100);
        AtomicInteger firedBeforeDeadline = new AtomicInteger();
        watchdog.watch(deadline, () -> {
            if (System.nanoTime() - deadline < 0) {
                firedBeforeDeadline.incrementAndGet();
            }
            fired.countDown();
        });
        assertThat(fired.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(firedBeforeDeadline.get()).isZero();
    }

    @Test
    void aClosedWatchNeverFires() throws Exception {
        AtomicInteger fired = new AtomicInteger();
        DeadlineWatchdog.Watch w =
                watchdog.watch(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50), fired::incrementAndGet);
        w.close();
        Thread.sleep(200);
        assertThat(fired.get()).isZero();
    }

    @Test
    void wakesUpAgainAfterIdling() throws Exception {
        watchdog.watch(System.nanoTime(), () -> {}); // make sure the thread exists and has work
        Thread.sleep(Duration.ofMillis(1500).toMillis()); // long enough for it to park
        CountDownLatch fired = new CountDownLatch(1);
        watchdog.watch(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20), fired::countDown);
        assertThat(fired.await(2, TimeUnit.SECONDS))
                .as("a parked watchdog is woken by a new watch")
                .isTrue();
    }

    @Test
    void manyWatchesFireEachExactlyOnce() throws Exception {
        int n = 500;
        AtomicInteger fired = new AtomicInteger();
        CountDownLatch all = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            watchdog.watch(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(i % 50), () -> {
                fired.incrementAndGet();
                all.countDown();
            });
        }
        assertThat(all.await(5, TimeUnit.SECONDS)).isTrue();
        Thread.sleep(50);
        assertThat(fired.get()).isEqualTo(n);
    }
}
