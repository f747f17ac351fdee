package io.traverse.cli.pipe;

/**
 * What a running pipe reports as it works, for metrics: connections accepted, set up or not, open,
 * and bytes each way as they are copied. The client is whoever connected to the pipe's listener:
 * the remote side of an expose, the local program of a forward. Called from the pipe's threads;
 * implementations must be thread-safe and quick.
 */
public interface PipeCounters {
    /** Counts nothing (a single {@code expose} or {@code forward} has no metrics endpoint). */
    PipeCounters NONE = new PipeCounters() {};

    /** A client connected to the listener. */
    default void accepted() {}

    /** The other side could not be reached (forward) or did not answer (expose); the client was reset. */
    default void failed() {}

    /** A connection is piped from now on. */
    default void opened() {}

    /** A piped connection ended (closed or reset). */
    default void closed() {}

    default void fromClient(long bytes) {}

    default void toClient(long bytes) {}
}
