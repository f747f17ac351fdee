package io.traverse.connect;

import io.traverse.ModuleStatistics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Per-module connection setup counters of one node; cheap to update from many threads. */
public final class ModuleCounters {
    private static final class Counters {
        final LongAdder attempts = new LongAdder();
        final LongAdder successes = new LongAdder();
        final LongAdder failures = new LongAdder();
        final LongAdder setupNanos = new LongAdder();
    }

    private final Map<String, Counters> byModule = new ConcurrentHashMap<>();

    private Counters of(String module) {
        return byModule.computeIfAbsent(module, m -> new Counters());
    }

    public void attempted(String module) {
        of(module).attempts.increment();
    }

    public void succeeded(String module, long setupNanos) {
        Counters c = of(module);
        c.successes.increment();
        c.setupNanos.add(setupNanos);
    }

    public void failed(String module) {
        of(module).failures.increment();
    }

    public List<ModuleStatistics> snapshot() {
        List<ModuleStatistics> out = new ArrayList<>();
        byModule.forEach((module, c) -> {
            long successes = c.successes.sum();
            Duration mean = successes == 0 ? Duration.ZERO : Duration.ofNanos(c.setupNanos.sum() / successes);
            out.add(new ModuleStatistics(module, c.attempts.sum(), successes, c.failures.sum(), mean));
        });
        out.sort((a, b) -> a.module().compareTo(b.module()));
        return out;
    }
}
