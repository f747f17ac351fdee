package io.traverse.wire;

/** A node gives a name up; answered by RESULT. */
public record NameRelease(int requestId, String name) implements LinkMessage {
    public NameRelease {
        FieldChecks.name(name);
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.NAME_RELEASE;
    }
}
