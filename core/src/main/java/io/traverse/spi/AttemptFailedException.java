package io.traverse.spi;

import java.net.ConnectException;

/** A connection attempt failed with a known reason and {@link FailureScope}. What applications see when nothing worked. */
public class AttemptFailedException extends ConnectException {
    private static final long serialVersionUID = 1L;

    private final FailureScope scope;

    public AttemptFailedException(FailureScope scope, String message) {
        super(message);
        this.scope = scope;
    }

    /**
     * A module's refusal at plan time ("does not apply here": no hub link, no node id), made
     * without a stack trace: it is routine, comes on every connection a module cannot serve
     * (measured: filling the trace was 1 % of a connecting node's CPU), and its message says
     * where it came from.
     */
    public static AttemptFailedException notApplicable(FailureScope scope, String message) {
        return new WithoutTrace(scope, message);
    }

    public FailureScope scope() {
        return scope;
    }

    private static final class WithoutTrace extends AttemptFailedException {
        private static final long serialVersionUID = 1L;

        WithoutTrace(FailureScope scope, String message) {
            super(scope, message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}
