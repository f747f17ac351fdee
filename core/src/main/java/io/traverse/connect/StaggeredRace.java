package io.traverse.connect;

import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.Deadline;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Staggered parallel attempts in the manner of RFC 8305 (happy eyeballs): start the first, start
 * the next after {@code stagger} or at once when one fails, keep the first success, cancel the
 * rest, and close any success that arrives too late. One failure that {@code endsRace} stops
 * everything (a definitive answer). Used for a target's addresses and for the module chain alike.
 *
 * <p>The first attempt runs on the calling thread, so the common case — the first try works —
 * costs no thread hand-off; later attempts run on {@code executor}. The stagger is timed by the
 * {@link DeadlineWatchdog}, which ticks anyway while an attempt's deadline is watched: a timer
 * task per race would wake a timer thread on every connection (measured: 0.6 context switches
 * per cached direct setup) only to be cancelled when the first attempt wins. A launch may come up
 * to one watchdog tick (5 ms) late. Single use.
 *
 * @param <T> the result, e.g. a connected socket
 */
public final class StaggeredRace<T> {
    /** One candidate: run it, or stop it from another thread. */
    public interface Attempt<T> {
        /** Blocks until done; the exception message should say what was tried. */
        T run() throws IOException;

        /** Makes a running {@link #run()} return soon (e.g. by closing its socket). */
        void cancel();

        /**
         * Waits for what the attempt needs before it can begin (a module's hub link), before
         * {@link #run()}; the stagger to the next attempt counts from its end, so an attempt that
         * had to wait still gets its head start over the ones after it. Throws as {@code run} does.
         */
        default void prepare() throws IOException {
        }

        /** Called on the attempt whose result {@link #run()} returned, when the caller keeps it. */
        default void confirm() throws IOException {
        }

        /** What is tried, for the message when the deadline passes while this still runs. */
        default String describe() {
            return toString();
        }
    }

    private final List<? extends Attempt<T>> attempts;
    private final long staggerNanos;
    private final Deadline deadline;
    private final Executor executor;
    private final Predicate<IOException> endsRace;
    private final Consumer<T> discard;
    /** Told when a second attempt starts: from then on there are rivals. */
    private final Runnable rivalsAppeared;

    // All guarded by this.
    private int started;
    private int finished;
    private boolean done;
    private boolean cancelled;
    private boolean timedOut;
    private T winner;
    private int winnerIndex = -1;
    private IOException ending;
    private final List<IOException> failures = new ArrayList<>();
    private final boolean[] running;
    /** Running and still in {@link Attempt#prepare()}: the next launch waits until it is under way. */
    private final boolean[] preparing;
    private DeadlineWatchdog.Watch nextLaunch;

    /**
     * @param stagger    nanoseconds before the next attempt starts; {@link Long#MAX_VALUE} means only after a failure
     * @param endsRace   failures after which nothing else is tried
     * @param discard    closes a result nobody wants (a late success)
     */
    public StaggeredRace(List<? extends Attempt<T>> attempts, long stagger, Deadline deadline, Executor executor,
            Predicate<IOException> endsRace, Consumer<T> discard) {
        this(attempts, stagger, deadline, executor, endsRace, discard, () -> { });
    }

    /** @param rivalsAppeared told (under the race's lock, so quickly) when the second attempt starts */
    public StaggeredRace(List<? extends Attempt<T>> attempts, long stagger, Deadline deadline, Executor executor,
            Predicate<IOException> endsRace, Consumer<T> discard, Runnable rivalsAppeared) {
        this.rivalsAppeared = rivalsAppeared;
        if (attempts.isEmpty()) {
            throw new IllegalArgumentException("nothing to try");
        }
        this.attempts = List.copyOf(attempts);
        this.staggerNanos = stagger;
        this.deadline = deadline;
        this.executor = executor;
        this.endsRace = endsRace;
        this.discard = discard;
        this.running = new boolean[attempts.size()];
        this.preparing = new boolean[attempts.size()];
    }


    /** Runs the race on the calling thread and returns the winner, or throws the reason nothing won. */
    public T run() throws IOException {
        synchronized (this) {
            if (cancelled) {
                throw new SocketException("Socket closed");
            }
            started = 1;
            running[0] = true;
            preparing[0] = true;
        }
        runAttempt(0);
        return awaitOutcome();
    }

    /**
     * Confirms the winner that {@link #run()} returned ({@link Attempt#confirm()}): call it when
     * the result is kept, not when an outer race may still drop it.
     */
    public void confirmWinner() throws IOException {
        int index;
        synchronized (this) {
            index = winnerIndex;
        }
        if (index >= 0) {
            attempts.get(index).confirm();
        }
    }

    /** Stops the race from another thread: {@link #run()} then throws {@code SocketException("Socket closed")}. */
    public void cancel() {
        List<Attempt<T>> toCancel;
        synchronized (this) {
            cancelled = true;
            if (done) {
                return;
            }
            done = true;
            toCancel = runningExcept(-1);
            notifyAll();
        }
        toCancel.forEach(Attempt::cancel);
    }

    private void runAttempt(int index) {
        T result = null;
        IOException failure = null;
        try {
            Attempt<T> attempt = attempts.get(index);
            attempt.prepare();
            synchronized (this) {
                preparing[index] = false;
                if (!done && !anyPreparing()) { // under way: the next one's turn comes after the stagger
                    scheduleNextLaunch();
                }
            }
            result = attempt.run();
        } catch (IOException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = new IOException("connection attempt failed: " + e, e);
        }
        report(index, result, failure);
    }

    private void report(int index, T result, IOException failure) {
        List<Attempt<T>> toCancel = List.of();
        T unwanted = null;
        synchronized (this) {
            finished++;
            running[index] = false;
            preparing[index] = false;
            if (result != null) {
                if (done) {
                    unwanted = result;
                } else {
                    winner = result;
                    winnerIndex = index;
                    done = true;
                    toCancel = runningExcept(index);
                    notifyAll();
                }
            } else if (!done) {
                failures.add(failure);
                if (endsRace.test(failure)) {
                    ending = failure;
                    done = true;
                    toCancel = runningExcept(index);
                    notifyAll();
                } else if (started < attempts.size()) {
                    // Not while one prepares (it launches the next a stagger after it is under way), and not
                    // past the deadline (an attempt's own timeout may come a moment before the race's).
                    if (!anyPreparing() && !deadline.isExpired()) {
                        launchNext();
                    }
                } else if (finished == started) {
                    done = true;
                    notifyAll();
                }
            }
        }
        toCancel.forEach(Attempt::cancel);
        if (unwanted != null) {
            discard.accept(unwanted);
        }
    }

    /** Caller holds the lock. */
    private void launchNext() {
        cancelScheduled();
        int index = started++;
        if (index == 1) {
            rivalsAppeared.run();
        }
        running[index] = true;
        preparing[index] = true;
        try {
            executor.execute(() -> runAttempt(index));
        } catch (RejectedExecutionException e) {
            // The node is closing or too many attempts run at once: count this one as failed.
            running[index] = false;
            preparing[index] = false;
            finished++;
            failures.add(new SocketException("cannot start another attempt: " + e.getMessage()));
            // As after any failure: on to the next attempt at once, or end when nothing is left.
            if (started < attempts.size()) {
                launchNext();
            } else if (finished == started) {
                done = true;
                notifyAll();
            }
            return;
        }
    }

    /** Caller holds the lock. */
    private void scheduleNextLaunch() {
        if (started >= attempts.size() || staggerNanos == Long.MAX_VALUE) {
            return;
        }
        if (staggerNanos <= 0) {
            launchNext(); // no stagger: each launches the next as soon as it is under way
            return;
        }
        nextLaunch = DeadlineWatchdog.shared().watch(System.nanoTime() + staggerNanos, () -> {
            synchronized (StaggeredRace.this) {
                if (!done && started < attempts.size()) {
                    launchNext();
                }
            }
        });
    }

    private T awaitOutcome() throws IOException {
        List<Attempt<T>> toCancel = List.of();
        synchronized (this) {
            try {
                while (!done) {
                    long remaining = deadline.remainingNanos();
                    if (remaining <= 0) {
                        timedOut = true;
                        done = true;
                        toCancel = runningExcept(-1);
                        for (Attempt<T> a : toCancel) {
                            failures.add(new SocketTimeoutException(a.describe() + ": no answer before the deadline"));
                        }
                        break;
                    }
                    TimeUnit.NANOSECONDS.timedWait(this, remaining);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                cancelled = true;
                done = true;
                toCancel = runningExcept(-1);
                cancelScheduled();
                toCancel.forEach(Attempt::cancel);
                throw new InterruptedIOException("connect interrupted");
            }
            cancelScheduled();
        }
        toCancel.forEach(Attempt::cancel);
        synchronized (this) {
            if (winner != null) {
                if (cancelled) {
                    discard.accept(winner);
                    throw new SocketException("Socket closed");
                }
                return winner;
            }
            throw failure();
        }
    }

    private void cancelScheduled() {
        if (nextLaunch != null) {
            nextLaunch.close();
            nextLaunch = null;
        }
    }

    /** Caller holds the lock. */
    private boolean anyPreparing() {
        for (boolean p : preparing) {
            if (p) {
                return true;
            }
        }
        return false;
    }

    private List<Attempt<T>> runningExcept(int index) {
        List<Attempt<T>> out = new ArrayList<>();
        for (int i = 0; i < running.length; i++) {
            if (running[i] && i != index) {
                out.add(attempts.get(i));
            }
        }
        return out;
    }

    /** Caller holds the lock. */
    private IOException failure() {
        if (cancelled) {
            return new SocketException("Socket closed");
        }
        if (ending != null) {
            return ending;
        }
        if (!timedOut && failures.size() == 1) {
            return failures.get(0);
        }
        boolean allTimeouts = failures.stream().allMatch(f -> f instanceof SocketTimeoutException);
        // An attempt's own timeout may beat the race's check of the deadline by a hair: same outcome.
        boolean ranOutOfTime = deadline.isExpired() && failures.stream().anyMatch(f -> f instanceof SocketTimeoutException);
        String summary = summary();
        IOException combined;
        if (timedOut || allTimeouts || ranOutOfTime) {
            combined = new SocketTimeoutException("Connect timed out" + (summary.isEmpty() ? "" : " (" + summary + ")"));
        } else {
            FailureScope widest = FailureScope.PATH;
            for (IOException f : failures) {
                if (FailureScope.of(f).isWiderThan(widest)) {
                    widest = FailureScope.of(f);
                }
            }
            combined = new AttemptFailedException(widest, summary);
        }
        failures.forEach(combined::addSuppressed);
        return combined;
    }

    private String summary() {
        StringBuilder sb = new StringBuilder();
        for (IOException f : failures) {
            if (sb.length() > 0) {
                sb.append("; ");
            }
            sb.append(f.getMessage() == null ? f.getClass().getSimpleName() : f.getMessage());
        }
        return sb.toString();
    }
}
