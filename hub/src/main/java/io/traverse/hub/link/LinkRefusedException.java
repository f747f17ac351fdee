package io.traverse.hub.link;

import io.traverse.identity.NodeId;
import io.traverse.wire.RejectCode;
import java.io.IOException;

/** A dialled link did not come up: the far end refused it, or this hub refused it after WELCOME. */
public final class LinkRefusedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final RejectCode code;
    private final NodeId peerId;
    private final boolean leadsBackHere;

    public LinkRefusedException(RejectCode code, String reason) {
        this(code, reason, null);
    }

    public LinkRefusedException(RejectCode code, String reason, NodeId peerId) {
        this(code, reason, peerId, false);
    }

    private LinkRefusedException(RejectCode code, String reason, NodeId peerId, boolean leadsBackHere) {
        super(code + ": " + reason);
        this.code = code;
        this.peerId = peerId;
        this.leadsBackHere = leadsBackHere;
    }

    /** The dialled address is this hub's own: it answered the HELLO itself. */
    static LinkRefusedException leadsBackHere(NodeId selfId) {
        return new LinkRefusedException(RejectCode.DUPLICATE_ID, "this address leads back to this hub", selfId, true);
    }

    /** Whether the dial reached this very hub (not another hub, whatever its id). */
    public boolean leadsBackHere() {
        return leadsBackHere;
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
