package io.traverse.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.protocol.Deadline;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Happy-eyeballs racing with fake attempts whose outcome and timing the test controls. */
@Timeout(30)
class StaggeredRaceTest {
    private static final Duration WITHIN = Duration.ofSeconds(5);
    private static final Predicate<IOException> NEVER_ENDS = e -> false;

    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final ExecutorService caller = Executors.newSingleThreadExecutor();
    private final List<String> discarded = new CopyOnWriteArrayList<>();

    @AfterEach
    void shutDown() throws InterruptedException {
        for (FakeAttempt a : created) {
            a.release(); // nothing stays blocked after a failed assertion
        }
        executor.shutdownNow();
        caller.shutdownNow();
        assertThat(executor.awaitTermination(5, TimeUnit.SECONDS)).isTrue();
    }

    private final List<FakeAttempt> created = new CopyOnWriteArrayList<>();

    /** An attempt that blocks until the test (or a cancel) decides how it ends. */
    private class FakeAttempt implements StaggeredRace.Attempt<String> {
        final String name;
        final CompletableFuture<Object> outcome = new CompletableFuture<>();
        final CountDownLatch started = new CountDownLatch(1);
        volatile long startedAt;
        volatile Thread thread;
        volatile boolean cancelled;
        /** What run() returns when cancelled: null means it throws, as a closed socket would. */
        volatile String resultWhenCancelled;

        FakeAttempt(String name) {
            this.name = name;
            created.add(this);
        }

        FakeAttempt succeedsAtOnce() {
            outcome.complete(name);
            return this;
        }

        FakeAttempt failsAtOnce(IOException e) {
            outcome.complete(e);
            return this;
        }

        void succeed() {
            outcome.complete(name);
        }

        void fail(IOException e) {
            outcome.complete(e);
        }

        void release() {
            outcome.complete(new IOException(name + " released by the test"));
        }

        boolean hasStarted() {
            return started.getCount() == 0;
        }

        @Override
        public String run() throws IOException {
            thread = Thread.currentThread();
            startedAt = System.nanoTime();
            started.countDown();
            Object o = outcome.join();
            if (o instanceof IOException e) {
                throw e;
            }
            if (o instanceof RuntimeException e) {
                throw e;
            }
            return (String) o;
        }

        @Override
        public void cancel() {
            cancelled = true;
            String late = resultWhenCancelled;
            outcome.complete(late != null ? late : new SocketException(name + " cancelled"));
        }
    }

    private StaggeredRace<String> race(
            List<FakeAttempt> attempts, Duration stagger, Duration deadline, Predicate<IOException> endsRace) {
        return new StaggeredRace<>(
                attempts, stagger.toNanos(), Deadline.after(deadline), executor, endsRace, discarded::add);
    }

    private StaggeredRace<String> race(List<FakeAttempt> attempts, Duration stagger) {
        return race(attempts, stagger, Duration.ofSeconds(20), NEVER_ENDS);
    }

    /** When the last {@link #runElsewhere} called {@code run()}. */
    private volatile long runCalledAt;

    private CompletableFuture<String> runElsewhere(StaggeredRace<String> race) {
        CompletableFuture<String> result = new CompletableFuture<>();
        caller.execute(() -> {
            try {
                runCalledAt = System.nanoTime();
                result.complete(race.run());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        return result;
    }

    private static Throwable failureOf(CompletableFuture<String> result) throws Exception {
        try {
            String value = result.get(10, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure, got " + value);
        } catch (java.util.concurrent.ExecutionException e) {
            return e.getCause();
        }
    }

    @Test
    void firstAttemptRunsOnTheCallingThreadAndWinsAlone() throws Exception {
        FakeAttempt a = new FakeAttempt("a").succeedsAtOnce();
        FakeAttempt b = new FakeAttempt("b").succeedsAtOnce();
        assertThat(race(List.of(a, b), Duration.ofSeconds(10)).run()).isEqualTo("a");
        assertThat(a.thread).isSameAs(Thread.currentThread());
        Thread.sleep(100);
        assertThat(b.hasStarted()).as("no second attempt when the first works").isFalse();
        assertThat(discarded).isEmpty();
    }

    @Test
    void theStaggerToTheNextAttemptCountsFromTheEndOfThisOnesPreparation() throws Exception {
        CountDownLatch linkUp = new CountDownLatch(1);
        FakeAttempt first = new FakeAttempt("first");
        FakeAttempt waiting = new FakeAttempt("waiting") {
            @Override
            public void prepare() throws IOException {
                try {
                    linkUp.await(); // a module waiting for its hub link
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException();
                }
            }
        };
        FakeAttempt after = new FakeAttempt("after");
        CompletableFuture<String> result = runElsewhere(race(List.of(first, waiting, after), Duration.ofMillis(30)));
        await().atMost(WITHIN).until(first::hasStarted);
        first.fail(new ConnectException("refused")); // the next is launched at once, and prepares
        Thread.sleep(300);
        assertThat(waiting.hasStarted()).isFalse();
        assertThat(after.hasStarted())
                .as("not launched while the one before it is still preparing")
                .isFalse();
        long released = System.nanoTime();
        linkUp.countDown();
        await().atMost(WITHIN).until(() -> waiting.hasStarted() && after.hasStarted());
        assertThat(after.startedAt - waiting.startedAt)
                .as("a stagger after the preparation ended")
                .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(25));
        assertThat(after.startedAt).isGreaterThan(released);
        waiting.succeed();
        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("waiting");
    }

    @Test
    void firstSuccessWinsAndTheOthersAreCancelled() throws Exception {
        FakeAttempt a = new FakeAttempt("a");
        FakeAttempt b = new FakeAttempt("b");
        FakeAttempt c = new FakeAttempt("c");
        CompletableFuture<String> result = runElsewhere(race(List.of(a, b, c), Duration.ofMillis(20)));
        await().atMost(WITHIN).until(() -> a.hasStarted() && b.hasStarted() && c.hasStarted());
        assertThat(b.thread).isNotSameAs(a.thread);
        b.succeed();
        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("b");
        await().atMost(WITHIN).until(() -> a.cancelled && c.cancelled);
        assertThat(b.cancelled).isFalse();
        assertThat(discarded).isEmpty();
    }

    @Test
    void aLateSuccessIsDiscarded() throws Exception {
        FakeAttempt a = new FakeAttempt("a");
        a.resultWhenCancelled = "late"; // connected just as it was told to stop
        FakeAttempt b = new FakeAttempt("b");
        CompletableFuture<String> result = runElsewhere(race(List.of(a, b), Duration.ofMillis(20)));
        await().atMost(WITHIN).until(b::hasStarted);
        b.succeed();
        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("b");
        await().atMost(WITHIN).untilAsserted(() -> assertThat(discarded).containsExactly("late"));
    }

    @Test
    void nextAttemptStartsAfterTheStaggerDelay() throws Exception {
        Duration stagger = Duration.ofMillis(300);
        FakeAttempt a = new FakeAttempt("a");
        FakeAttempt b = new FakeAttempt("b");
        CompletableFuture<String> result = runElsewhere(race(List.of(a, b), stagger));
        await().atMost(WITHIN).until(b::hasStarted);
        assertThat(a.startedAt).isGreaterThanOrEqualTo(runCalledAt);
        assertThat(b.startedAt - runCalledAt)
                .as("b waits the stagger after the race (and a) began")
                .isGreaterThanOrEqualTo(stagger.toNanos());
        b.succeed();
        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("b");
    }

    @Test
    void nextAttemptStartsAtOnceWhenOneFails() throws Exception {
        Duration longStagger = Duration.ofSeconds(20);
        FakeAttempt a = new FakeAttempt("a").failsAtOnce(new ConnectException("a refused"));
        FakeAttempt b = new FakeAttempt("b").succeedsAtOnce();
        long start = System.nanoTime();
        assertThat(race(List.of(a, b), longStagger).run()).isEqualTo("b");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WITHIN);

        // Also when a later attempt fails while an earlier one still hangs.
        FakeAttempt c = new FakeAttempt("c");
        FakeAttempt d = new FakeAttempt("d").failsAtOnce(new ConnectException("d refused"));
        FakeAttempt e = new FakeAttempt("e");
        Duration stagger = Duration.ofSeconds(2);
        CompletableFuture<String> result = runElsewhere(race(List.of(c, d, e), stagger));
        await().atMost(WITHIN).until(e::hasStarted);
        assertThat(d.startedAt - runCalledAt).as("d waits one stagger").isGreaterThanOrEqualTo(stagger.toNanos());
        assertThat(e.startedAt - d.startedAt)
                .as("e starts right after d failed, not a stagger later")
                .isLessThan(stagger.toNanos() * 3 / 4);
        e.succeed();
        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("e");
        await().atMost(WITHIN).until(() -> c.cancelled);
    }

    @Test
    void withoutStaggerTheNextStartsOnlyAfterAFailure() throws Exception {
        FakeAttempt a = new FakeAttempt("a");
        FakeAttempt b = new FakeAttempt("b").succeedsAtOnce();
        StaggeredRace<String> race = new StaggeredRace<>(
                List.of(a, b),
                Long.MAX_VALUE,
                Deadline.after(Duration.ofSeconds(20)),
                executor,
                NEVER_ENDS,
                discarded::add);
        CompletableFuture<String> result = runElsewhere(race);
        await().atMost(WITHIN).until(a::hasStarted);
        Thread.sleep(300);
        assertThat(b.hasStarted()).isFalse();
        a.fail(new ConnectException("a refused"));
        assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("b");
    }

    @Test
    void aDefinitiveFailureEndsTheRace() throws Exception {
        AttemptFailedException noSuchPort = new AttemptFailedException(FailureScope.TARGET, "b: port 80 not found");
        FakeAttempt a = new FakeAttempt("a");
        FakeAttempt b = new FakeAttempt("b");
        FakeAttempt c = new FakeAttempt("c");
        CompletableFuture<String> result = runElsewhere(race(
                List.of(a, b, c),
                Duration.ofMillis(300),
                Duration.ofSeconds(20),
                e -> FailureScope.of(e) == FailureScope.TARGET));
        await().atMost(WITHIN).until(b::hasStarted);
        b.fail(noSuchPort);
        assertThat(failureOf(result)).isSameAs(noSuchPort);
        await().atMost(WITHIN).until(() -> a.cancelled);
        Thread.sleep(600); // two staggers: c would have started by now
        assertThat(c.hasStarted())
                .as("nothing is tried after a definitive answer")
                .isFalse();
    }

    @Test
    void aSingleFailureIsRethrownAsIs() {
        ConnectException refused = new ConnectException("Connection refused: 10.0.0.1:80");
        FakeAttempt a = new FakeAttempt("a").failsAtOnce(refused);
        assertThatThrownBy(() -> race(List.of(a), Duration.ofMillis(10)).run()).isSameAs(refused);
    }

    @Test
    void severalFailuresAreCombinedWithEveryMessage() {
        ConnectException first = new ConnectException("10.0.0.1:80 refused");
        IOException second = new IOException("10.0.0.2:80 wrong node");
        AttemptFailedException third = new AttemptFailedException(FailureScope.MODULE, "no route to hub");
        List<FakeAttempt> attempts = List.of(
                new FakeAttempt("a").failsAtOnce(first),
                new FakeAttempt("b").failsAtOnce(second),
                new FakeAttempt("c").failsAtOnce(third));
        assertThatThrownBy(() -> race(attempts, Duration.ofMillis(10)).run())
                .isInstanceOfSatisfying(AttemptFailedException.class, e -> {
                    assertThat(e.getMessage())
                            .contains("10.0.0.1:80 refused", "10.0.0.2:80 wrong node", "no route to hub");
                    assertThat(e.getSuppressed()).containsExactlyInAnyOrder(first, second, third);
                    assertThat(e.scope()).as("the widest scope of the failures").isEqualTo(FailureScope.MODULE);
                });
    }

    @Test
    void aThrowingAttemptCountsAsAFailure() {
        FakeAttempt a = new FakeAttempt("a");
        a.outcome.complete(new IllegalStateException("bug in a module"));
        FakeAttempt b = new FakeAttempt("b").succeedsAtOnce();
        assertThat(catchingRun(race(List.of(a, b), Duration.ofSeconds(10)))).isEqualTo("b");

        FakeAttempt c = new FakeAttempt("c");
        c.outcome.complete(new IllegalStateException("bug in c"));
        assertThatThrownBy(() -> race(List.of(c), Duration.ofMillis(10)).run())
                .isInstanceOf(IOException.class)
                .hasMessageContaining("bug in c");
    }

    private static String catchingRun(StaggeredRace<String> race) {
        try {
            return race.run();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void allTimeoutsGiveASocketTimeoutException() {
        List<FakeAttempt> attempts = List.of(
                new FakeAttempt("a").failsAtOnce(new SocketTimeoutException("a timed out")),
                new FakeAttempt("b").failsAtOnce(new SocketTimeoutException("b timed out")));
        assertThatThrownBy(() -> race(attempts, Duration.ofMillis(10)).run())
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessageContaining("a timed out")
                .hasMessageContaining("b timed out");
    }

    @Test
    void theDeadlineEndsTheRaceWithASocketTimeoutException() throws Exception {
        FakeAttempt a = new FakeAttempt("a").failsAtOnce(new ConnectException("a refused"));
        FakeAttempt b = new FakeAttempt("b");
        FakeAttempt c = new FakeAttempt("c");
        long start = System.nanoTime();
        assertThatThrownBy(() -> race(List.of(a, b, c), Duration.ofMillis(20), Duration.ofMillis(300), NEVER_ENDS)
                        .run())
                .isInstanceOf(SocketTimeoutException.class)
                .hasMessageContaining("a refused");
        long elapsed = System.nanoTime() - start;
        assertThat(elapsed)
                .as("not before the deadline")
                .isGreaterThanOrEqualTo(Duration.ofMillis(300).toNanos());
        assertThat(elapsed).isLessThan(WITHIN.toNanos());
        await().atMost(WITHIN).until(() -> b.cancelled && c.cancelled);
    }

    @Test
    void cancelFromAnotherThreadClosesTheRace() throws Exception {
        FakeAttempt a = new FakeAttempt("a");
        FakeAttempt b = new FakeAttempt("b");
        FakeAttempt c = new FakeAttempt("c");
        StaggeredRace<String> race = race(List.of(a, b, c), Duration.ofMillis(20));
        CompletableFuture<String> result = runElsewhere(race);
        await().atMost(WITHIN).until(() -> a.hasStarted() && b.hasStarted() && c.hasStarted());
        race.cancel();
        assertThat(failureOf(result)).isInstanceOf(SocketException.class).hasMessage("Socket closed");
        assertThat(Arrays.asList(a.cancelled, b.cancelled, c.cancelled)).containsOnly(true);
    }

    @Test
    void cancelBeforeRunStartsNothing() {
        FakeAttempt a = new FakeAttempt("a").succeedsAtOnce();
        StaggeredRace<String> race = race(List.of(a), Duration.ofMillis(20));
        race.cancel();
        assertThatThrownBy(race::run).isInstanceOf(SocketException.class).hasMessage("Socket closed");
        assertThat(a.hasStarted()).isFalse();
    }

    @Test
    void aSuccessAfterCancelIsDiscardedNotReturned() throws Exception {
        FakeAttempt a = new FakeAttempt("a");
        a.resultWhenCancelled = "too late";
        StaggeredRace<String> race = race(List.of(a), Duration.ofMillis(20));
        CompletableFuture<String> result = runElsewhere(race);
        await().atMost(WITHIN).until(a::hasStarted);
        race.cancel();
        assertThat(failureOf(result)).isInstanceOf(SocketException.class).hasMessage("Socket closed");
        await().atMost(WITHIN).untilAsserted(() -> assertThat(discarded).containsExactly("too late"));
    }

    @Test
    void attemptsTheExecutorRefusesCountAsFailedAndTheRaceStillEnds() {
        // A node that is closing, or has too many attempts running, refuses new ones: the race must not hang.
        java.util.concurrent.Executor refusing = command -> {
            throw new RejectedExecutionException("attempt pool is full");
        };
        List<FakeAttempt> attempts = List.of(
                new FakeAttempt("a").failsAtOnce(new ConnectException("a refused")),
                new FakeAttempt("b").succeedsAtOnce(),
                new FakeAttempt("c").succeedsAtOnce());
        StaggeredRace<String> race = new StaggeredRace<>(
                attempts,
                Duration.ofSeconds(20).toNanos(),
                Deadline.after(Duration.ofSeconds(20)),
                refusing,
                NEVER_ENDS,
                discarded::add);
        long start = System.nanoTime();
        assertThatThrownBy(race::run)
                .isInstanceOf(AttemptFailedException.class)
                .hasMessageContaining("a refused")
                .hasMessageContaining("attempt pool is full");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WITHIN);
    }

    @Test
    void emptyAttemptListIsRefused() {
        assertThatThrownBy(() -> race(new ArrayList<>(), Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void manyRacesWithRandomOutcomesAlwaysEndCorrectly() throws Exception {
        // Seeded random mixes of instant successes and failures: a success anywhere means a winner, else a failure.
        for (int n = 0; n < 300; n++) {
            java.util.Random r = new java.util.Random(io.traverse.identity.RandomIdentities.SEED + n);
            int count = 1 + r.nextInt(5);
            List<FakeAttempt> attempts = new ArrayList<>();
            boolean anySuccess = false;
            for (int i = 0; i < count; i++) {
                FakeAttempt a = new FakeAttempt("n" + n + "a" + i);
                if (r.nextInt(3) == 0) {
                    a.succeedsAtOnce();
                    anySuccess = true;
                } else {
                    a.failsAtOnce(new ConnectException("refused " + i));
                }
                attempts.add(a);
            }
            String where = io.traverse.identity.RandomIdentities.describe(n);
            AtomicReference<Object> outcome = new AtomicReference<>();
            try {
                outcome.set(race(attempts, Duration.ofMillis(r.nextInt(3))).run());
            } catch (IOException e) {
                outcome.set(e);
            }
            if (anySuccess) {
                assertThat(outcome.get()).as(where).isInstanceOf(String.class);
                assertThat(attempts.stream()
                                .filter(a -> a.name.equals(outcome.get()))
                                .findFirst()
                                .orElseThrow()
                                .outcome
                                .getNow(null))
                        .as(where)
                        .isEqualTo(outcome.get());
            } else {
                assertThat(outcome.get()).as(where).isInstanceOf(ConnectException.class);
                if (count > 1) {
                    assertThat(((IOException) outcome.get()).getSuppressed())
                            .as(where)
                            .hasSize(count);
                }
            }
        }
        // Late successes of losers were all discarded, never leaked: each discarded value is a real attempt's success.
        assertThat(discarded).allMatch(d -> created.stream().anyMatch(a -> a.name.equals(d)));
    }
}
