package io.traverse.hub.link;

import io.traverse.identity.NodeId;
import io.traverse.wire.RejectCode;
import java.io.IOException;

/** A dialled link did not come up: the far end refused it, or this hub refused it after WELCOME. */
public final class LinkRefusedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final RejectCode code;
    private final NodeId peerId;

    public LinkRefusedException(RejectCode code, String reason) {
        this(code, reason, null);
    }

    public LinkRefusedException(RejectCode code, String reason, NodeId peerId) {
        super(code + ": " + reason);
        this.code = code;
        this.peerId = peerId;
    }

    /** The id of the hub that refused, when the handshake got as far as its CHALLENGE; else null. */
    public NodeId peerId() {
        return peerId;
    }

    /** Why; null when the link failed without a REJECT (closed, wrong acceptor proof, timeout). */
    public RejectCode code() {
        return code;
    }
}
