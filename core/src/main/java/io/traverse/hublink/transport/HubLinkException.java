package io.traverse.hublink.transport;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A link attempt to a hub failed; the message says which hub and why, for people.
 * {@link #isRefusalForSetting()} tells a hub's refusal of one of this node's settings (wrong token,
 * protocol version) from a network failure or a passing refusal (hub at its limit, shutting down, an
 * id it still holds for a link just lost).
 */
public class HubLinkException extends IOException {
    private static final long serialVersionUID = 1L;
    private final boolean refusal;

    public HubLinkException(String message, boolean refusal) {
        super(message);
        this.refusal = refusal;
    }

    public HubLinkException(String message, Throwable cause) {
        super(message, cause);
        this.refusal = false;
    }

    /** True if the hub answered and refused the link for a setting of this node, which retrying will not change. */
    public boolean isRefusalForSetting() {
        return refusal;
    }

    /** The failure inside a future's CompletionException and ExecutionException wrappers. */
    public static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
