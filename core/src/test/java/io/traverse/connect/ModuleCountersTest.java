package io.traverse.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.ModuleStatistics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ModuleCountersTest {
    @Test
    void snapshotSumsPerModuleSortedByName() {
        ModuleCounters counters = new ModuleCounters();
        assertThat(counters.snapshot()).isEmpty();
        counters.attempted("routed");
        counters.failed("routed");
        counters.attempted("direct");
        counters.succeeded("direct", 1_000_000);
        counters.attempted("direct");
        counters.succeeded("direct", 3_000_000);
        counters.attempted("direct"); // lost a race: neither success nor failure

        assertThat(counters.snapshot())
                .containsExactly(
                        new ModuleStatistics("direct", 3, 2, 0, Duration.ofMillis(2)),
                        new ModuleStatistics("routed", 1, 0, 1, Duration.ZERO));
    }

    @Test
    void snapshotIsACopy() {
        ModuleCounters counters = new ModuleCounters();
        counters.attempted("direct");
        List<ModuleStatistics> before = counters.snapshot();
        counters.attempted("direct");
        assertThat(before.get(0).attempts()).isEqualTo(1);
        assertThat(counters.snapshot().get(0).attempts()).isEqualTo(2);
    }

    @Test
    void concurrentUpdatesAreAllCounted() throws Exception {
        ModuleCounters counters = new ModuleCounters();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 10_000; i++) {
                        counters.attempted(i % 2 == 0 ? "direct" : "splice");
                        if (i % 2 == 0) {
                            counters.succeeded("direct", 10);
                        } else {
                            counters.failed("splice");
                        }
                    }
                }));
            }
            for (Future<?> f : done) {
                f.get(10, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(counters.snapshot())
                .containsExactly(
                        new ModuleStatistics("direct", 20_000, 20_000, 0, Duration.ofNanos(10)),
                        new ModuleStatistics("splice", 20_000, 0, 20_000, Duration.ZERO));
    }
}
