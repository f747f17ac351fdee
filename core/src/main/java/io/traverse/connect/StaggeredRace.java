package io.traverse.connect;

import io.traverse.protocol.Deadline;
import io.traverse.spi.AttemptFailedException;
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
 * <p>With a {@link Preference} (the module chain: kernel sockets before relays), a success of an
 * attempt that is not preferred does not win at once while a preferred one still runs: it is held
 * for as long as it took itself (about one round trip of its path), and a preferred success in that
 * time wins instead (RFC 8305 §5's reasoning: prefer the better path within a delay measured from
 * the round trip). When the held one wins after all, preferred attempts that began after the first
 * are not cancelled but left to finish, and the preference hears how they ended; the first
 * attempt is cancelled as before: it asked its target without a hold, and it runs on the caller's
 * thread, which must return with the winner.
 *
 * <p>About 600 lines because launching, holding, cancelling and closing late successes share one
 * lock and one set of fields; split, each part would need the others' state.
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
        default void prepare() throws IOException {}

        /** Called on the attempt whose result {@link #run()} returned, when the caller keeps it. */
        default void confirm() throws IOException {}

        /** Asked once {@link #prepare()} returned: true launches the next attempt at once, without the stagger. */
        default boolean longShot() {
            return false;
        }

        /** What is tried, for the message when the deadline passes while this still runs. */
        default String describe() {
            return toString();
        }
    }

    /** Which attempts are better when they get through, and what to do with those that outlive a worse winner. */
    public interface Preference<T> {
        /** True for an attempt whose success beats a success of one that is not, if it comes soon enough. */
        boolean preferred(Attempt<T> attempt);

        /**
         * A preferred attempt that was left running when one that is not won has ended: with its
         * result (which this must close), or with {@code result} null if it failed or was cancelled.
         */
        void continued(Attempt<T> attempt, T result);
    }

    /** A held success is held at least this long, so that a preferred answer already on its way is seen. */
    static final long MIN_HOLD_NANOS = 1_000_000;
    /** ... and at most this long, whatever the round trip. */
    static final long MAX_HOLD_NANOS = 2_000_000_000L;

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
    /** When each attempt was under way (its prepare() done; System.nanoTime), to hold a success as long as it took. */
    private final long[] underWayAt;
    /** Left running after the race ended, their outcome for the preference. */
    private final boolean[] continuing;
    /** A long shot that launched the next attempt when it went under way: its failure launches nothing more. */
    private final boolean[] launchedNextEarly;

    private DeadlineWatchdog.Watch nextLaunch;
    private Preference<T> preference;
    private long firstStaggerNanos = -1;
    /** A success that waits for preferred attempts, or null. */
    private T held;

    private int heldIndex = -1;
    private DeadlineWatchdog.Watch holdRelease;

    /**
     * @param stagger    nanoseconds before the next attempt starts; {@link Long#MAX_VALUE} means only after a failure
     * @param endsRace   failures after which nothing else is tried
     * @param discard    closes a result nobody wants (a late success)
     */
    public StaggeredRace(
            List<? extends Attempt<T>> attempts,
            long stagger,
            Deadline deadline,
            Executor executor,
            Predicate<IOException> endsRace,
            Consumer<T> discard) {
        this(attempts, stagger, deadline, executor, endsRace, discard, () -> {});
    }

    /** @param rivalsAppeared told (under the race's lock, so quickly) when the second attempt starts */
    public StaggeredRace(
            List<? extends Attempt<T>> attempts,
            long stagger,
            Deadline deadline,
            Executor executor,
            Predicate<IOException> endsRace,
            Consumer<T> discard,
            Runnable rivalsAppeared) {
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
        this.underWayAt = new long[attempts.size()];
        this.continuing = new boolean[attempts.size()];
        this.launchedNextEarly = new boolean[attempts.size()];
    }

    /** Makes preferred attempts beat others that are only a little faster (see the class comment); before {@link #run()}. */
    public synchronized StaggeredRace<T> prefer(Preference<T> p) {
        this.preference = p;
        return this;
    }

    /**
     * Waits this long, instead of the stagger, before the second attempt: for a first attempt known
     * to take longer (its setup time last time); before {@link #run()}.
     */
    public synchronized StaggeredRace<T> firstStagger(long nanos) {
        this.firstStaggerNanos = nanos;
        return this;
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
        T unwanted;
        synchronized (this) {
            cancelled = true;
            if (done) {
                return;
            }
            done = true;
            toCancel = runningExcept(-1);
            unwanted = takeHeld();
            notifyAll();
        }
        toCancel.forEach(Attempt::cancel);
        if (unwanted != null) {
            discard.accept(unwanted);
        }
    }

    /** Cancels the preferred attempts left running after a worse winner (e.g. when the node closes). */
    public void cancelContinuing() {
        List<Attempt<T>> toCancel;
        synchronized (this) {
            toCancel = stillContinuing();
        }
        toCancel.forEach(Attempt::cancel);
    }

    /** True while a preferred attempt left running after a worse winner has not ended. */
    public synchronized boolean hasContinuing() {
        return !stillContinuing().isEmpty();
    }

    /** True if {@code attempt} was left running after a worse winner and has not ended. */
    public synchronized boolean continues(Attempt<T> attempt) {
        return stillContinuing().contains(attempt);
    }

    /** Caller holds the lock. */
    private List<Attempt<T>> stillContinuing() {
        List<Attempt<T>> out = new ArrayList<>(0);
        for (int i = 0; i < continuing.length; i++) {
            if (continuing[i] && running[i]) {
                out.add(attempts.get(i));
            }
        }
        return out;
    }

    private void runAttempt(int index) {
        T result = null;
        IOException failure = null;
        try {
            Attempt<T> attempt = attempts.get(index);
            attempt.prepare();
            boolean longShot = attempt.longShot();
            synchronized (this) {
                underWayAt[index] = System.nanoTime();
                preparing[index] = false;
                if (!done && !anyPreparing()) { // under way: the next one's turn comes after the stagger
                    launchedNextEarly[index] = longShot && started < attempts.size();
                    scheduleNextLaunch(longShot);
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
        T unwantedHeld = null;
        boolean continued = false;
        synchronized (this) {
            finished++;
            running[index] = false;
            preparing[index] = false;
            if (continuing[index]) {
                continued = true;
            } else if (result != null) {
                if (done) {
                    unwanted = result;
                } else if (mustWaitForPreferred(index)) {
                    if (held == null) {
                        hold(index, result);
                    } else {
                        unwanted = result; // the first held success is as good, and already waiting
                    }
                } else {
                    unwantedHeld = takeHeld();
                    toCancel = win(index, result);
                }
            } else if (!done) {
                failures.add(failure);
                if (endsRace.test(failure)) {
                    ending = failure;
                    done = true;
                    toCancel = runningExcept(index);
                    unwantedHeld = takeHeld();
                    notifyAll();
                } else if (held != null && !preferredRunning()) {
                    int i = heldIndex;
                    toCancel = win(i, takeHeld()); // nothing better is coming
                } else if (started < attempts.size()) {
                    // Not while one prepares (it launches the next a stagger after it is under way), not past the
                    // deadline (an attempt's own timeout may come a moment before the race's), and not for a long shot
                    // that already launched the next when it went under way: that one keeps its head start.
                    boolean spent = launchedNextEarly[index] && anyRunning();
                    if (!anyPreparing() && !deadline.isExpired() && !spent) {
                        launchNext();
                    }
                } else if (finished == started && held == null) {
                    done = true;
                    notifyAll();
                }
            }
        }
        if (continued) {
            preference.continued(attempts.get(index), result);
            return;
        }
        toCancel.forEach(Attempt::cancel);
        if (unwanted != null) {
            discard.accept(unwanted);
        }
        if (unwantedHeld != null) {
            discard.accept(unwantedHeld);
        }
    }

    /**
     * Ends the race with attempt {@code index} as winner; returns the attempts to cancel. Preferred
     * attempts other than the first are left running when a worse one wins. Caller holds the lock.
     */
    private List<Attempt<T>> win(int index, T result) {
        winner = result;
        winnerIndex = index;
        done = true;
        cancelHoldRelease();
        notifyAll();
        List<Attempt<T>> toCancel = new ArrayList<>();
        boolean worseWon = preference != null && !preference.preferred(attempts.get(index));
        for (int i = 0; i < running.length; i++) {
            if (!running[i] || i == index) {
                continue;
            }
            // Never the first: it asked unheld, and it runs on the caller's thread, which must return with the winner.
            if (worseWon && i > 0 && preference.preferred(attempts.get(i))) {
                continuing[i] = true;
            } else {
                toCancel.add(attempts.get(i));
            }
        }
        return toCancel;
    }

    /** True if a success of attempt {@code index} must wait for a preferred attempt still running. Caller holds the lock. */
    private boolean mustWaitForPreferred(int index) {
        return preference != null && !preference.preferred(attempts.get(index)) && preferredRunning();
    }

    /** Caller holds the lock. */
    private boolean preferredRunning() {
        for (int i = 0; i < running.length; i++) {
            if (running[i] && preference.preferred(attempts.get(i))) {
                return true;
            }
        }
        return false;
    }

    /** Holds a success for as long as it took (its path's round trip, about), within the bounds. Caller holds the lock. */
    private void hold(int index, T result) {
        held = result;
        heldIndex = index;
        long took = System.nanoTime() - underWayAt[index]; // not its wait for a hub link: its path's time
        long holdFor = Math.max(MIN_HOLD_NANOS, Math.min(MAX_HOLD_NANOS, took));
        holdRelease = DeadlineWatchdog.shared().watch(System.nanoTime() + holdFor, this::releaseHeld);
    }

    /** The hold is over: the held success wins unless something already did. */
    private void releaseHeld() {
        List<Attempt<T>> toCancel;
        synchronized (this) {
            if (done || held == null) {
                return;
            }
            int i = heldIndex;
            toCancel = win(i, takeHeld());
        }
        toCancel.forEach(Attempt::cancel);
    }

    /** Takes the held success away (to win or to be discarded), or null. Caller holds the lock. */
    private T takeHeld() {
        T h = held;
        held = null;
        heldIndex = -1;
        cancelHoldRelease();
        return h;
    }

    private void cancelHoldRelease() {
        if (holdRelease != null) {
            holdRelease.close();
            holdRelease = null;
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
    private void scheduleNextLaunch(boolean now) {
        if (started >= attempts.size() || staggerNanos == Long.MAX_VALUE) {
            return;
        }
        long stagger = now ? 0 : started == 1 && firstStaggerNanos >= 0 ? firstStaggerNanos : staggerNanos;
        if (stagger <= 0) {
            launchNext(); // no stagger: each launches the next as soon as it is under way
            return;
        }
        nextLaunch = DeadlineWatchdog.shared().watch(System.nanoTime() + stagger, () -> {
            synchronized (StaggeredRace.this) {
                if (!done && started < attempts.size()) {
                    launchNext();
                }
            }
        });
    }

    private T awaitOutcome() throws IOException {
        List<Attempt<T>> toCancel = List.of();
        List<Attempt<T>> interruptedCancel = null;
        List<T> interruptedDiscard = new ArrayList<>(2);
        synchronized (this) {
            try {
                while (!done) {
                    long remaining = deadline.remainingNanos();
                    if (remaining <= 0 && held != null) {
                        int i = heldIndex;
                        toCancel = win(i, takeHeld()); // the deadline ends the wait for something better
                        break;
                    }
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
                interruptedCancel = runningExcept(-1);
                cancelScheduled();
                interruptedDiscard.add(takeHeld());
                interruptedDiscard.add(winner); // a win that came with the interrupt: nobody will have it
                winner = null;
            }
            if (interruptedCancel == null) {
                cancelScheduled();
            }
        }
        if (interruptedCancel != null) {
            interruptedCancel.forEach(Attempt::cancel);
            interruptedDiscard.stream().filter(java.util.Objects::nonNull).forEach(discard);
            throw new InterruptedIOException("connect interrupted");
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
    private boolean anyRunning() {
        for (boolean r : running) {
            if (r) {
                return true;
            }
        }
        return false;
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
        boolean ranOutOfTime =
                deadline.isExpired() && failures.stream().anyMatch(f -> f instanceof SocketTimeoutException);
        String summary = summary();
        IOException combined;
        if (timedOut || allTimeouts || ranOutOfTime) {
            combined =
                    new SocketTimeoutException("Connect timed out" + (summary.isEmpty() ? "" : " (" + summary + ")"));
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
