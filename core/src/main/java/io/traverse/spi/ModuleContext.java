package io.traverse.spi;

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
}
