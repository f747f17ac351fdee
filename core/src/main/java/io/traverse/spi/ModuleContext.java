package io.traverse.spi;

import io.traverse.HubDirectory;
import io.traverse.HubLinkStatus;
import io.traverse.SideChannel;
import io.traverse.TraverseConfig;
import io.traverse.connect.DirectConnector;
import io.traverse.identity.LocalInterfaces;
import io.traverse.identity.NodeIdentity;

/** What a node offers the modules it creates. */
public interface ModuleContext {
    TraverseConfig config();

    /** This node's full identity. */
    NodeIdentity localIdentity();

    LocalInterfaces localInterfaces();

    /** Staggered TCP connects with the identity handshake, for every module that ends in a kernel socket. */
    DirectConnector directConnector();

    /** Control messages to other nodes through the hubs (reverse, splice and routed are built on it). */
    SideChannel sideChannel();

    /** Lookups at the hub network. */
    HubDirectory hubDirectory();

    /** Connections dialled back to this node, and accepting connections this node dials back (the reverse module). */
    ReverseConnections reverseConnections();

    /** RELAY frames over the node's hub link (the routed module). */
    RelayLink relayLink();

    /** The node's hub link now: its hub and the address the hub saw it come from (splice needs that echo). */
    HubLinkStatus hubLinkStatus();

    /** Events for the node's listeners (peer unreachable). */
    ModuleEvents events();
}
