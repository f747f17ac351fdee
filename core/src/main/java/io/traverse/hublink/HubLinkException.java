package io.traverse.hublink;

import java.io.IOException;

/**
 * A link attempt to a hub failed; the message says which hub and why, for people. {@link #isRefusal()}
 * tells a hub's explicit REJECT (wrong token, duplicate id, version) from a network failure.
 */
public class HubLinkException extends IOException {
    private static final long serialVersionUID = 1L;
    private final boolean refusal;

    HubLinkException(String message, boolean refusal) {
        super(message);
        this.refusal = refusal;
    }

    HubLinkException(String message, Throwable cause) {
        super(message, cause);
        this.refusal = false;
    }

    /** True if the hub answered and refused the link. */
    public boolean isRefusal() {
        return refusal;
    }
}
