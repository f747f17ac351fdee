package io.traverse.wire;

/** A node asks to register a hostname-safe name for one of its virtual ports; answered by RESULT. */
public record NameBind(int requestId, String name, int virtualPort) implements LinkMessage {
    public NameBind {
        FieldChecks.name(name);
        FieldChecks.range("virtual port", virtualPort, 1, 65535);
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.NAME_BIND;
    }
}
