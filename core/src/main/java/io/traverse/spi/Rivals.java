package io.traverse.spi;

import io.traverse.protocol.Deadline;
import java.io.InterruptedIOException;
import java.util.concurrent.TimeUnit;

/**
 * Whether more than one attempt of one connect has been started: modules and, within the direct
 * module, a target's addresses. Once there is a rival, only one attempt's connection may reach
 * the target's application, yet a target may hand a connection to its {@code accept()} before
 * the source knows which attempt won. So a module that asks the target for a connection while
 * there are rivals asks it to hold the connection out of its backlog until confirmed
 * ({@link ConnectionAttempt#confirm()}), and the loser's connection is dropped unseen. A connect
 * with one attempt, the common case, never holds and pays nothing.
 *
 * <p>The first attempt may have asked before a rival started, unheld: its target hands the
 * connection over at once. So it must not lose to a held rival: a held attempt that gets through
 * while an unheld request is still unanswered waits for that answer ({@link #heldMayWin}) and
 * gives way if it was accepted. That wait comes only after a stagger and only while the first
 * attempt's answer is late, so it costs the common case nothing.
 *
 * <p>Held rivals wait for it only a little ({@link #heldMayWin}): an unheld answer later than that
 * still loses, and its connection reaches the target's application empty. That needs the first
 * attempt's answer to be many of the rival's round trips late after a stagger, which is rare.
 */
public final class Rivals {
    private volatile boolean present;
    // Guarded by this.
    private int unheldUnanswered;
    private boolean unheldAccepted;

    /** A second attempt of this connect is starting. */
    public void appeared() {
        present = true;
    }

    /** True once a second attempt of this connect has started. */
    public boolean present() {
        return present;
    }

    /** A request's exchange with its target: it returns once the target accepted, and throws otherwise. */
    @FunctionalInterface
    public interface Exchange<T> {
        T run() throws java.io.IOException;
    }

    /**
     * Runs the exchange of a request sent unheld, counted as sent and then as accepted (it returned)
     * or failed (it threw): the bookkeeping every module's unheld attempt needs, in one place.
     */
    public <T> T unheld(Exchange<T> exchange) throws java.io.IOException {
        unheldSent();
        boolean accepted = false;
        try {
            T result = exchange.run();
            accepted = true;
            return result;
        } finally {
            if (accepted) {
                unheldAccepted();
            } else {
                unheldFailed();
            }
        }
    }

    /** An attempt sends its request unheld (no rival yet); exactly one of the two calls below follows. */
    public synchronized void unheldSent() {
        unheldUnanswered++;
    }

    /** The target accepted an unheld request: its connection is in the application's hands, so that attempt wins. */
    public synchronized void unheldAccepted() {
        unheldUnanswered--;
        unheldAccepted = true;
        notifyAll();
    }

    /** An unheld request failed (or was called off): it reached nobody's application. */
    public synchronized void unheldFailed() {
        unheldUnanswered--;
        notifyAll();
    }

    /**
     * For a held attempt whose target accepted: waits, at most {@code maxWaitNanos} and within
     * {@code deadline}, until no unheld request is unanswered. False: one was accepted, and this
     * attempt must give way (close its connection unconfirmed, so its target drops it). The bound
     * keeps a first attempt that hangs (a peer that never answers) from holding up its rival; a
     * few round trips of the rival's own path is plenty for an answer already on its way.
     */
    public synchronized boolean heldMayWin(Deadline deadline, long maxWaitNanos) throws InterruptedIOException {
        long until = System.nanoTime() + maxWaitNanos;
        while (unheldUnanswered > 0 && !unheldAccepted) {
            long left = Math.min(deadline.remainingNanos(), until - System.nanoTime());
            if (left <= 0) {
                break;
            }
            try {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted waiting for a rival attempt's answer");
            }
        }
        return !unheldAccepted;
    }
}
