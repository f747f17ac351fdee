package io.traverse;

/** A configuration value is not of the accepted form. The message names the key, the value, its origin and the form. */
public class TraverseConfigException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public TraverseConfigException(String message, Throwable cause) {
        super(message, cause);
    }

    public TraverseConfigException(String message) {
        super(message);
    }
}
