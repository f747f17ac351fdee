package io.traverse.wire;

/** A hub description, sent by its hub or flooded on by others. */
public record Gossip(HubDescription description) implements LinkMessage {
    public Gossip {
        FieldChecks.present("description", description);
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.GOSSIP;
    }
}
