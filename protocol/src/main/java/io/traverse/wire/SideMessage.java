package io.traverse.wire;

import io.traverse.identity.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * A control message from one node to another through the hubs (paper §3.3.1, the side channel).
 * A REPLY or ERROR carries the message id of its REQUEST and goes from the request's target back
 * to its sender. The payload of an ERROR is one {@link SideMessageError} code byte followed by a
 * UTF-8 reason of at most {@link LinkLimits#MAX_REASON} bytes.
 */
public record SideMessage(
        long messageId, NodeId from, NodeId to, int hopsLeft, SideMessageKind kind, String service, byte[] payload)
        implements LinkMessage {
    public SideMessage {
        FieldChecks.present("from", from);
        FieldChecks.present("to", to);
        FieldChecks.range("hops left", hopsLeft, 0, 255);
        FieldChecks.present("kind", kind);
        FieldChecks.text("service", service, LinkLimits.MAX_SERVICE);
        FieldChecks.bytes("payload", payload, LinkLimits.MAX_SIDE_PAYLOAD);
        if (kind == SideMessageKind.ERROR) {
            if (payload.length == 0) {
                throw new IllegalArgumentException("an ERROR side message needs an error code");
            }
            SideMessageError.ofCode(payload[0] & 0xff);
            if (payload.length - 1 > LinkLimits.MAX_REASON) {
                throw new IllegalArgumentException(
                        "error reason of " + (payload.length - 1) + " bytes exceeds " + LinkLimits.MAX_REASON);
            }
        }
    }

    /** A new request with the default hop limit. */
    public static SideMessage request(long messageId, NodeId from, NodeId to, String service, byte[] payload) {
        return new SideMessage(
                messageId, from, to, LinkLimits.DEFAULT_SIDE_HOPS, SideMessageKind.REQUEST, service, payload);
    }

    /** The answer to this request, from its target back to its sender. */
    public SideMessage reply(byte[] answer) {
        return new SideMessage(
                messageId, to, from, LinkLimits.DEFAULT_SIDE_HOPS, SideMessageKind.REPLY, service, answer);
    }

    /**
     * The error answer to this request, from its target (as seen by the sender) back to its sender;
     * the reason is cut to fit.
     */
    public SideMessage error(SideMessageError error, String reason) {
        byte[] text = Truncation.toUtf8Bytes(reason, LinkLimits.MAX_REASON).getBytes(StandardCharsets.UTF_8);
        byte[] errorPayload = new byte[1 + text.length];
        errorPayload[0] = (byte) error.code();
        System.arraycopy(text, 0, errorPayload, 1, text.length);
        return new SideMessage(
                messageId, to, from, LinkLimits.DEFAULT_SIDE_HOPS, SideMessageKind.ERROR, service, errorPayload);
    }

    /** This message one hop further on. */
    public SideMessage forwarded() {
        if (hopsLeft == 0) {
            throw new IllegalStateException("no hops left");
        }
        return new SideMessage(messageId, from, to, hopsLeft - 1, kind, service, payload);
    }

    /** The error code of an ERROR message. */
    public SideMessageError errorCode() {
        requireError();
        return SideMessageError.ofCode(payload[0] & 0xff);
    }

    /** The reason of an ERROR message (malformed UTF-8 is replaced, never fails). */
    public String errorReason() {
        requireError();
        return new String(payload, 1, payload.length - 1, StandardCharsets.UTF_8);
    }

    private void requireError() {
        if (kind != SideMessageKind.ERROR) {
            throw new IllegalStateException("a " + kind + " side message has no error");
        }
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.SIDE_MESSAGE;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SideMessage m
                && m.messageId == messageId
                && m.from.equals(from)
                && m.to.equals(to)
                && m.hopsLeft == hopsLeft
                && m.kind == kind
                && m.service.equals(service)
                && Arrays.equals(m.payload, payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(messageId, from, to, hopsLeft, kind, service, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        String tail = kind == SideMessageKind.ERROR ? errorCode() + " " + errorReason() : payload.length + " bytes";
        return "SideMessage[" + Long.toUnsignedString(messageId) + " " + kind + " " + from + " -> " + to + ", hops "
                + hopsLeft + ", service '" + service + "', " + tail + "]";
    }
}
