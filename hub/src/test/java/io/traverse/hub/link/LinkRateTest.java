package io.traverse.hub.link;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The token bucket on new links, on a clock of the test's own. */
class LinkRateTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void aFullBucketTakesItsBurstThenOneLinkPerIntervalAndCountsTheRest() {
        AtomicInteger refused = new AtomicInteger();
        LinkRate rate = new LinkRate(10, 4, refused::incrementAndGet);
        long t = System.nanoTime() + 1000 * MS; // well after construction: the bucket is full
        for (int i = 0; i < 4; i++) {
            assertThat(rate.tryTake(t)).as("burst link %d", i).isTrue();
        }
        assertThat(rate.tryTake(t)).isFalse();
        assertThat(rate.tryTake(t + 50 * MS)).as("half an interval later").isFalse();
        assertThat(rate.tryTake(t + 100 * MS)).as("one interval later").isTrue();
        assertThat(rate.tryTake(t + 100 * MS)).isFalse();
        assertThat(refused.get()).isEqualTo(3);
        // A long pause refills the bucket to its burst, no more.
        long later = t + 10_000 * MS;
        int taken = 0;
        while (rate.tryTake(later)) {
            taken++;
        }
        assertThat(taken).isEqualTo(4);
    }

    @Test
    void theReasonNamesBothKeys() {
        assertThat(new LinkRate(500, 1000, () -> {}).reason("hub-a"))
                .isEqualTo("OVERLOAD: new links come faster than 500 a second"
                        + " after a burst of 1000 (traverse.hub.link.burst) at hub hub-a, the most traverse.hub.link.rate allows;"
                        + " try again in a moment");
    }
}
