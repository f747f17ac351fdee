package io.traverse.wire;

/**
 * Sent once each way on a node's link when its data link is up: "from here on, my RELAY frames
 * to you travel on the data link". Everything before it on the link was sent first, so the
 * receiver takes the data link's frames only after it has taken this (docs/protocol.md, "Data
 * links"). No fields.
 */
public record DataLinkSwitch() implements LinkMessage {
    @Override
    public LinkMessageType type() {
        return LinkMessageType.DATA_LINK_SWITCH;
    }
}
