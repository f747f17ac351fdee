package io.traverse.wire;

/** The hub's answer to NAME_BIND or NAME_RELEASE. */
public record Result(int requestId, ResultStatus status, String message) implements LinkMessage {
    public Result {
        FieldChecks.present("status", status);
        FieldChecks.text("message", message, LinkLimits.MAX_REASON);
    }

    /** A result whose message is cut to fit. */
    public static Result of(int requestId, ResultStatus status, String message) {
        return new Result(requestId, status, Truncation.toUtf8Bytes(message, LinkLimits.MAX_REASON));
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.RESULT;
    }
}
