package io.traverse.spi;

import java.io.IOException;
import java.net.Socket;

/**
 * One module's try at one destination (the shape of OkHttp's plan): it knows how to connect and
 * how to stop; the racer decides when each runs and which result is kept.
 */
public interface ConnectionAttempt {
    /**
     * Blocks until connected or failed. Throws {@link AttemptFailedException} with the scope of the
     * failure when known; any other {@link IOException} counts as {@link FailureScope#PATH}.
     */
    Socket connect() throws IOException;

    /**
     * Waits, within the request's deadline, for what the attempt needs before it can begin — the
     * hub link, for modules that ask through the hubs ({@link HubLinkWait}) — and is called before
     * {@link #connect()}. The racer starts the next module a stagger after this returns, so a
     * module that had to wait keeps its head start over the ones after it. Cancelled like
     * {@code connect}. Most attempts need nothing.
     */
    default void prepare() throws IOException {}

    /**
     * Called once the whole connect chose this attempt's socket, before the application gets it:
     * an attempt that asked the target to hold its connection ({@link ConnectRequest#holdUntilConfirmed()})
     * tells it now to hand it to its application (no round trip: the target's answer is not
     * awaited). A loser is only cancelled, and its held connection is dropped at the target.
     */
    default void confirm() throws IOException {}

    /**
     * True if the next module should not wait a stagger for this attempt: it is unlikely to get
     * through (the direct module dialling only private addresses of networks this host is not on,
     * whose SYNs are mostly dropped on the way; a dial-back to such addresses), or it cannot answer
     * within a few round trips anyway (splice). The racer then starts the next module as soon as
     * this one is under way, and lets this one run on beside it.
     */
    default boolean longShot() {
        return false;
    }

    /** Stops a running {@link #connect()} from another thread; it then throws and leaves nothing open. */
    void cancel();

    /**
     * What a {@link #connect()} that has not finished was last doing, if there is more to tell
     * than that it gave no answer (e.g. "waiting for a hub link …"): said when the deadline passes
     * with this attempt still under way, also after {@link #cancel()}. Null: nothing to add.
     */
    default String progress() {
        return null;
    }
}
