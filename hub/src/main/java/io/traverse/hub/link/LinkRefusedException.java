package io.traverse.hub.link;

import io.traverse.wire.RejectCode;
import java.io.IOException;

/** A dialled link did not come up: the far end refused it, or this hub refused it after WELCOME. */
public final class LinkRefusedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final RejectCode code;

    public LinkRefusedException(RejectCode code, String reason) {
        super(code + ": " + reason);
        this.code = code;
    }

    /** Why; null when the link failed without a REJECT (closed, wrong acceptor proof, timeout). */
    public RejectCode code() {
        return code;
    }
}
