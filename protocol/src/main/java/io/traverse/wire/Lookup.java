package io.traverse.wire;

/** A node asks the hub what it knows; answered by LOOKUP_RESULT. The argument may be empty for listings. */
public record Lookup(int requestId, LookupKind kind, String argument) implements LinkMessage {
    public Lookup {
        FieldChecks.present("lookup kind", kind);
        FieldChecks.text("lookup argument", argument, LinkLimits.MAX_LOOKUP_ARGUMENT);
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.LOOKUP;
    }
}
