package io.traverse.wire;

/** A node's addresses changed: its new identity text (same node id). */
public record NodeUpdate(String identityText) implements LinkMessage {
    public NodeUpdate {
        FieldChecks.nonEmptyText("identity text", identityText, LinkLimits.MAX_IDENTITY_TEXT);
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.NODE_UPDATE;
    }
}
