package io.traverse;

import java.io.IOException;

/** A side-channel request that failed; {@link #failure()} says how. */
public class SideChannelException extends IOException {
    private static final long serialVersionUID = 1L;

    /** How a side-channel request failed. */
    public enum Failure {
        /** This node has no hub link (none configured or found, or the link is down). */
        NO_HUB,
        /** No answer within the timeout. */
        TIMEOUT,
        /** No hub knows the target node. */
        UNKNOWN_NODE,
        /** The target's hub is not reachable in the hub network. */
        NO_ROUTE,
        /** The request was forwarded too often. */
        HOP_LIMIT,
        /** The target has no handler for the service. */
        NO_SERVICE,
        /** Too many requests pending (here, at a hub or at the target). */
        OVERLOAD,
        /** The target's handler failed. */
        HANDLER_FAILED,
        /** The hub link broke while the request was pending. */
        LINK_LOST,
        /** The node was closed. */
        CLOSED
    }

    private final Failure failure;

    public SideChannelException(Failure failure, String message) {
        super(message);
        this.failure = failure;
    }

    public Failure failure() {
        return failure;
    }
}
