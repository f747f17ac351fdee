package io.traverse.hub.sidechannel;

import io.traverse.hub.link.Link;
import io.traverse.hub.routing.HubRoutingTable;
import io.traverse.identity.NodeId;

/** What the router needs to know about the hub network right now. */
public interface SideChannelNetwork {
    NodeId selfId();

    /** The link of a node connected to this hub, or null. */
    Link localNodeLink(NodeId node);

    /** Where RELAY frames to a node connected here go: its data link if it has one, else its link; null if not here. */
    default Link localNodeRelayLink(NodeId node) {
        return localNodeLink(node);
    }

    /** The hub a remote node is at, or null if no reachable hub lists it. */
    NodeId hubOf(NodeId node);

    HubRoutingTable routes();

    /** The live link to a neighbouring hub, or null. */
    Link hubLink(NodeId hub);
}
