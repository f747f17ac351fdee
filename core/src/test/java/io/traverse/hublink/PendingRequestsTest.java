package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class PendingRequestsTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void answerCompletesAndFreesTheSlot() throws Exception {
        PendingRequests<String> p = new PendingRequests<>(2, 0xFFFF_FFFFL);
        PendingRequests.Pending<String> r = p.register(TimeUnit.SECONDS.toNanos(5), timer, TimeoutException::new);
        assertThat(p.complete(r.id(), "yes")).isTrue();
        assertThat(r.answer().get()).isEqualTo("yes");
        assertThat(p.size()).isZero();
        assertThat(p.complete(r.id(), "late")).isFalse();
    }

    @Test
    void fullTableRefusesAndDeadlineFailsWithTheChosenException() throws Exception {
        PendingRequests<String> p = new PendingRequests<>(1, 0xFFFF_FFFFL);
        PendingRequests.Pending<String> r =
                p.register(TimeUnit.MILLISECONDS.toNanos(50), timer, () -> new TimeoutException("no answer in 50 ms"));
        assertThat(p.register(TimeUnit.SECONDS.toNanos(5), timer, TimeoutException::new))
                .isNull();
        try {
            r.answer().get();
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(TimeoutException.class).hasMessage("no answer in 50 ms");
        }
        assertThat(p.size()).isZero();
        assertThat(p.register(TimeUnit.SECONDS.toNanos(5), timer, TimeoutException::new))
                .isNotNull();
    }

    @Test
    void callerCancelFreesTheSlotAndFailAllFailsTheRest() {
        PendingRequests<String> p = new PendingRequests<>(4, 0xFFFF_FFFFL);
        PendingRequests.Pending<String> a = p.register(TimeUnit.SECONDS.toNanos(5), timer, TimeoutException::new);
        PendingRequests.Pending<String> b = p.register(TimeUnit.SECONDS.toNanos(5), timer, TimeoutException::new);
        a.answer().cancel(false);
        assertThat(p.size()).isEqualTo(1);
        p.failAll(() -> new IllegalStateException("link lost"));
        assertThat(b.answer()).isCompletedExceptionally();
        assertThat(p.size()).isZero();
    }

    @Test
    void idsWrapWithinTheMaskAndSkipZeroAndIdsInUse() {
        PendingRequests<String> p = new PendingRequests<>(8, 0x3);
        long first = p.register(TimeUnit.SECONDS.toNanos(5), timer, TimeoutException::new)
                .id();
        long second = p.register(TimeUnit.SECONDS.toNanos(5), timer, TimeoutException::new)
                .id();
        long third = p.register(TimeUnit.SECONDS.toNanos(5), timer, TimeoutException::new)
                .id();
        assertThat(new long[] {first, second, third}).containsExactlyInAnyOrder(1, 2, 3);
        p.complete(second, "x");
        assertThat(p.register(TimeUnit.SECONDS.toNanos(5), timer, TimeoutException::new)
                        .id())
                .isEqualTo(second);
    }
}
