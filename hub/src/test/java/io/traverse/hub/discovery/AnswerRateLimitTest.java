package io.traverse.hub.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AnswerRateLimitTest {
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);

    @Test
    void oneSourceGetsItsBurstThenItsRate() throws Exception {
        AnswerRateLimit limit = new AnswerRateLimit(1000, 1000, 2, 3, clock::get);
        InetAddress a = InetAddress.getByName("10.0.0.1");
        assertThat(limit.tryAcquire(a)).isTrue();
        assertThat(limit.tryAcquire(a)).isTrue();
        assertThat(limit.tryAcquire(a)).isTrue();
        assertThat(limit.tryAcquire(a)).isFalse();
        clock.addAndGet(500_000_000L); // half a second at 2/s: one more
        assertThat(limit.tryAcquire(a)).isTrue();
        assertThat(limit.tryAcquire(a)).isFalse();
    }

    @Test
    void aFloodingSourceDoesNotUseUpOtherSourcesShare() throws Exception {
        AnswerRateLimit limit = new AnswerRateLimit(1000, 10, 1, 2, clock::get);
        InetAddress flooder = InetAddress.getByName("10.0.0.1");
        for (int i = 0; i < 100; i++) {
            limit.tryAcquire(flooder);
        }
        assertThat(limit.tryAcquire(InetAddress.getByName("10.0.0.2"))).isTrue();
    }

    @Test
    void theOverallLimitHoldsAcrossSources() throws Exception {
        AnswerRateLimit limit = new AnswerRateLimit(1, 5, 100, 100, clock::get);
        int granted = 0;
        for (int i = 0; i < 50; i++) {
            if (limit.tryAcquire(InetAddress.getByName("10.0.1." + i))) {
                granted++;
            }
        }
        assertThat(granted).isEqualTo(5);
    }

    @Test
    void theSourceTableIsBounded() throws Exception {
        AnswerRateLimit limit = new AnswerRateLimit(1, 1, 1, 1, clock::get);
        for (int i = 0; i < AnswerRateLimit.MAX_SOURCES + 500; i++) {
            limit.tryAcquire(InetAddress.getByAddress(new byte[] {10, (byte) (i >> 16), (byte) (i >> 8), (byte) i}));
        }
        assertThat(limit.trackedSources()).isEqualTo(AnswerRateLimit.MAX_SOURCES);
    }
}
