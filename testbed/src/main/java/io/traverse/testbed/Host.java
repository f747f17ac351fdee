package io.traverse.testbed;

import java.net.Inet4Address;

/**
 * A machine in the testbed: a namespace with one interface and one address, either on a site's
 * private network (default route through the site's router) or directly on the internet.
 *
 * @param label         the name the test gave it
 * @param namespace     where its programs run
 * @param address       its IPv4 address
 * @param interfaceName its interface inside the namespace
 */
public record Host(String label, NetworkNamespace namespace, Inet4Address address, String interfaceName) {
    @Override
    public String toString() {
        return label + "(" + address.getHostAddress() + ")";
    }
}
