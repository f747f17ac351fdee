package io.traverse.wire;

import io.traverse.identity.NodeId;
import java.util.List;

/**
 * The descriptions a hub holds, as hub id and state number only: sent on a new hub link instead
 * of the descriptions themselves, so that the peer answers with just what the sender lacks. In a
 * dense network both ends of a new link already know nearly everything.
 */
public record GossipDigest(List<Entry> entries) implements LinkMessage {
    /** One description held: its hub and state number. */
    public record Entry(NodeId hubId, long stateNumber) {
        public Entry {
            FieldChecks.present("hub id", hubId);
        }
    }

    public GossipDigest {
        FieldChecks.present("entries", entries);
        if (entries.size() > LinkLimits.MAX_LIST) {
            throw new IllegalArgumentException(
                    entries.size() + " digest entries exceed the maximum of " + LinkLimits.MAX_LIST);
        }
        entries = List.copyOf(entries);
    }

    @Override
    public LinkMessageType type() {
        return LinkMessageType.GOSSIP_DIGEST;
    }
}
