package io.traverse.direct.portmap;

import java.io.IOException;

/**
 * A router refused a port mapping, or did not answer with a valid reply. A refusal is the
 * router's definite answer (a result code); anything else may be a stray or damaged datagram.
 */
public final class PortMappingException extends IOException {
    private static final long serialVersionUID = 1L;
    private final boolean refusal;

    public PortMappingException(String message) {
        this(message, false, null);
    }

    public PortMappingException(String message, Throwable cause) {
        this(message, false, cause);
    }

    private PortMappingException(String message, boolean refusal, Throwable cause) {
        super(message, cause);
        this.refusal = refusal;
    }

    /** The router's definite answer: asking again will not change it. */
    static PortMappingException refusal(String message) {
        return new PortMappingException(message, true, null);
    }

    public boolean isRefusal() {
        return refusal;
    }
}
