package io.traverse.bench.longpoll;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The scaled-down latency sweep: 30 long-poll clients, 50 events each every 30 ms,
 * at our defaults and at a few of the paper's Table 2 points (one of them a 5 s batch timespan). Every event must arrive, once and
 * in order; latencies are printed, not asserted (they are measured by {@code bench/run-latency.sh}
 * and recorded in docs/benchmarks.md).
 */
class EventLatencyTest {
    private static final int CLIENTS = 30;
    private static final int EVENTS = 50;
    private static EventLatency bench;

    @BeforeAll
    static void start() throws Exception {
        bench = EventLatency.start();
    }

    @AfterAll
    static void stop() {
        if (bench != null) {
            bench.close();
        }
    }

    @ParameterizedTest
    // batch-timespan=5000: before the timespan held only data, nodes with one of 5 s or more could not link at all.
    @ValueSource(
            strings = {
                "defaults",
                "batch-size=1",
                "batch-timespan=500",
                "batch-timespan=5000",
                "server-timeout=1000",
                "regenerate=100"
            })
    void everyEventArrivesOnceAndInOrder(String spec) throws Exception {
        EventLatency.SweepPoint point = EventLatency.points(spec).get(0);
        LatencyResult r = bench.run(CLIENTS, EVENTS, Duration.ofMillis(30), point.label(), point.settings());
        System.out.println(LatencyResult.tableHeader() + System.lineSeparator() + r.tableRow());
        assertThat(r.sent()).isEqualTo((long) CLIENTS * EVENTS);
        assertThat(r.lost()).as("events lost at %s", spec).isZero();
        assertThat(r.orderViolations()).as("events out of order at %s", spec).isZero();
        assertThat(r.received()).isEqualTo(r.sent());
    }
}
