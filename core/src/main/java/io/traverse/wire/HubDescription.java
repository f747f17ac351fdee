package io.traverse.wire;

import io.traverse.identity.NodeId;
import java.util.List;

/**
 * What a hub tells the hub network about itself (paper §3.3.1): id, state number (newer wins),
 * name, the addresses it can be dialled at, its neighbours (hubs with a live authenticated link),
 * its nodes and their names. Routing uses only the links both ends list.
 */
public record HubDescription(NodeId hubId, long stateNumber, String name, List<String> linkAddresses,
        List<NodeId> neighbours, List<NodeEntry> nodes, List<NameEntry> names) {
    public HubDescription {
        FieldChecks.present("hub id", hubId);
        FieldChecks.hubName(name);
        linkAddresses = FieldChecks.linkAddresses(linkAddresses);
        neighbours = FieldChecks.list("neighbours", neighbours, LinkLimits.MAX_LIST);
        nodes = FieldChecks.list("nodes", nodes, LinkLimits.MAX_LIST);
        names = FieldChecks.list("names", names, LinkLimits.MAX_LIST);
    }

    /** A node connected to the hub, with its identity text. */
    public record NodeEntry(NodeId nodeId, String identityText) {
        public NodeEntry {
            FieldChecks.present("node id", nodeId);
            FieldChecks.nonEmptyText("identity text", identityText, LinkLimits.MAX_IDENTITY_TEXT);
        }
    }

    /** A name registered at the hub by one of its nodes, for one of that node's virtual ports. */
    public record NameEntry(String name, NodeId nodeId, int virtualPort) {
        public NameEntry {
            FieldChecks.name(name);
            FieldChecks.present("node id", nodeId);
            FieldChecks.range("virtual port", virtualPort, 1, 65535);
        }
    }
}
