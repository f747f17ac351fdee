package io.traverse.wire;

/** The link is refused (or ended) for a reason; the sender closes it after this frame. */
public record Reject(RejectCode code, String reason) implements LinkMessage {
    public Reject {
        FieldChecks.present("reject code", code);
        FieldChecks.text("reason", reason, LinkLimits.MAX_REASON);
    }

    /** A reject whose reason is cut to fit (reasons often quote what the peer sent). */
    public static Reject of(RejectCode code, String reason) {
        return new Reject(code, Truncation.toUtf8Bytes(reason, LinkLimits.MAX_REASON));
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.REJECT;
    }
}
