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

    public FailureScope scope() {
        return scope;
    }
}
