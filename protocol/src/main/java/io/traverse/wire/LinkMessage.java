package io.traverse.wire;

/**
 * A frame of the hub link protocol after the preamble. Records only: every field is validated
 * when the record is made (so whatever exists can be encoded, and a decoded message obeys the
 * same rules); what a message means is for the node and hub to decide. Byte arrays held by
 * messages belong to the message: do not modify them.
 */
public sealed interface LinkMessage
        permits Hello,
                Challenge,
                Auth,
                Welcome,
                Reject,
                Ping,
                Pong,
                NodeUpdate,
                NameBind,
                NameRelease,
                Lookup,
                Result,
                LookupResult,
                DataLinkSwitch,
                SideMessage,
                Relay,
                Gossip,
                GossipDigest,
                GossipSummary {

    /** The frame type this message travels as. */
    LinkMessageType type();
}
