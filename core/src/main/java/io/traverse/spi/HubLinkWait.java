package io.traverse.spi;

import io.traverse.HubLinkStatus;
import io.traverse.identity.NodeId;
import io.traverse.protocol.Deadline;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One attempt's wait for the hub link, for modules that ask through the hubs. A node that starts
 * and connects at once (a connection pool at start-up, a command-line tool) has no link yet:
 * such a module plans its attempt while the link is {@linkplain HubLinkStatus#isExpected()
 * expected} and waits for it within the connect's deadline, rather than dropping out of the race.
 * A node with no hub at all fails at once. Nothing is waited on, or held, until {@link #await}.
 *
 * <pre>{@code
 * plan:     NodeId target = HubLinkWait.targetNode(request, "to ask through the hubs");
 *           HubLinkWait.requireExpected(context, "to ask node X to dial back");
 * prepare:  link.await(request.deadline(), "to ask node X to dial back");   // link = HubLinkWait.of(context)
 * cancel:   link.cancel();
 * progress: return link.progress();
 * }</pre>
 */
public final class HubLinkWait {
    private final ModuleContext context;
    private volatile CompletableFuture<Void> waiting;
    private volatile String purpose;
    private volatile boolean cancelled;
    /** True from the start of a wait that has not seen the link up: what the attempt was doing when it ended. */
    private volatile boolean unfinished;

    private HubLinkWait(ModuleContext context) {
        this.context = context;
    }

    /** True if the node is linked or getting a link: an attempt that needs it is worth planning. */
    public static boolean expected(ModuleContext context) {
        return context.hubLinkStatus().isExpected();
    }

    /**
     * Plan's check: not applicable unless the node is linked or getting a link.
     *
     * @param why what the link is for, e.g. "to splice with node X": "no hub link to splice with node X (hub link …)"
     */
    public static void requireExpected(ModuleContext context, String why) throws AttemptFailedException {
        if (!expected(context)) {
            throw AttemptFailedException.notApplicable(
                    FailureScope.MODULE, "no hub link " + why + " (hub link " + context.hubLinkStatus() + ")");
        }
    }

    /**
     * Plan's check: the node id the hubs know the target by; not applicable when the target names none.
     *
     * @param why e.g. "to splice with through the hubs": "the target names no node id to splice with through the hubs"
     */
    public static NodeId targetNode(ConnectRequest request, String why) throws AttemptFailedException {
        return request.target()
                .id()
                .orElseThrow(() -> AttemptFailedException.notApplicable(
                        FailureScope.MODULE, "the target names no node id " + why));
    }

    /** A wait for one attempt; it starts at {@link #await}. */
    public static HubLinkWait of(ModuleContext context) {
        return new HubLinkWait(context);
    }

    /**
     * Returns once the link is up (at once while it is); throws {@link SocketTimeoutException}
     * when the deadline passes first, {@link AttemptFailedException} ({@link FailureScope#MODULE})
     * when the node turns out to have no hub or closes, and ({@link FailureScope#PATH}) when
     * {@link #cancel() cancelled}. May be called again (after a link that came and went).
     *
     * @param why what the link is for, e.g. "to ask node X to dial back", for the messages
     */
    public void await(Deadline deadline, String why) throws IOException {
        if (cancelled) {
            throw new AttemptFailedException(FailureScope.PATH, "cancelled");
        }
        CompletableFuture<Void> up = context.hubLinkUp();
        if (up.isDone() && !up.isCompletedExceptionally()) {
            return; // linked: the common case costs nothing more
        }
        purpose = why;
        unfinished = true;
        waiting = up;
        if (cancelled) {
            up.cancel(false);
        }
        try {
            up.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
            unfinished = false;
        } catch (TimeoutException e) {
            throw new SocketTimeoutException("connect timed out " + progress());
        } catch (CancellationException e) {
            throw new AttemptFailedException(FailureScope.PATH, "cancelled");
        } catch (ExecutionException | CompletionException e) {
            unfinished = false;
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new AttemptFailedException(FailureScope.MODULE, "no hub link " + why + ": " + cause.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for a hub link " + why);
        } finally {
            waiting = null;
            up.cancel(false); // a waiter that ended some other way leaves the link's set now
        }
    }

    /** Makes a waiting {@link #await} return at once (the race was decided elsewhere). */
    public void cancel() {
        cancelled = true;
        CompletableFuture<Void> up = waiting;
        if (up != null) {
            up.cancel(false);
        }
    }

    /** "waiting for a hub link … (hub link …)" if a wait began and never saw the link up, else null. */
    public String progress() {
        return unfinished ? "waiting for a hub link " + purpose + " (hub link " + context.hubLinkStatus() + ")" : null;
    }
}
