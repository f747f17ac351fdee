package io.traverse.spi;

import io.traverse.HubLinkStatus;
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
 * A node with no hub at all fails at once.
 *
 * <pre>{@code
 * plan:    if (!HubLinkWait.expected(context)) throw new AttemptFailedException(MODULE, "no hub link ...");
 * connect: wait = HubLinkWait.begin(context); wait.await(request.deadline(), "to ask node X to dial back");
 * cancel:  wait.cancel();
 * }</pre>
 */
public final class HubLinkWait {
    private final ModuleContext context;
    private final CompletableFuture<Void> up;

    private HubLinkWait(ModuleContext context) {
        this.context = context;
        this.up = context.hubLinkUp();
    }

    /** True if the node is linked or getting a link: an attempt that needs it is worth planning. */
    public static boolean expected(ModuleContext context) {
        return context.hubLinkStatus().isExpected();
    }

    /** Starts waiting (nothing blocks until {@link #await}). */
    public static HubLinkWait begin(ModuleContext context) {
        return new HubLinkWait(context);
    }

    /**
     * Returns once the link is up; throws {@link SocketTimeoutException} when the deadline passes
     * first, {@link AttemptFailedException} ({@link FailureScope#MODULE}) when the node turns out
     * to have no hub, and ({@link FailureScope#PATH}) when {@link #cancel() cancelled}.
     *
     * @param purpose what the link is for, e.g. "to ask node X to dial back", for the messages
     */
    public void await(Deadline deadline, String purpose) throws IOException {
        if (up.isDone() && !up.isCompletedExceptionally()) {
            return; // linked: the common case costs nothing
        }
        try {
            up.get(Math.max(0, deadline.remainingNanos()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new SocketTimeoutException("connect timed out waiting for a hub link " + purpose + " (hub link "
                    + context.hubLinkStatus() + ")");
        } catch (CancellationException e) {
            throw new AttemptFailedException(FailureScope.PATH, "cancelled");
        } catch (ExecutionException | CompletionException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new AttemptFailedException(FailureScope.MODULE, "no hub link " + purpose + ": " + cause.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted waiting for a hub link " + purpose);
        }
    }

    /** Makes a waiting {@link #await} return at once (the race was decided elsewhere). */
    public void cancel() {
        up.cancel(false);
    }
}
