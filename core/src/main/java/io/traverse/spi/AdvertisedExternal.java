package io.traverse.spi;

import java.net.InetSocketAddress;

/**
 * An external address a module added to its node's identity (a port mapped on the NAT in front
 * of the node); see {@link ModuleContext#advertiseExternal}. It stays in the identity, and with
 * the hub, until withdrawn.
 */
public interface AdvertisedExternal {
    InetSocketAddress address();

    /** Takes the address out of the identity again and tells the hub; a second call does nothing. */
    void withdraw();
}
