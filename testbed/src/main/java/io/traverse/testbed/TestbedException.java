package io.traverse.testbed;

/** The testbed could not build or drive the network it was asked for; the message says what and why. */
public class TestbedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TestbedException(String message) {
        super(message);
    }

    public TestbedException(String message, Throwable cause) {
        super(message, cause);
    }
}
