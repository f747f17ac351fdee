package io.traverse.cli.demo;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.util.Collections;
import java.util.Optional;

/**
 * An IPv4 address of this machine that a hub would take for a public one — what the splice module
 * needs to see in its endpoint echo (outside the private, loopback, link-local and carrier-grade
 * NAT ranges, by the same rule). Nodes bound to it splice with each other in the demo; on a
 * machine with only private addresses there is none, and the demo leaves the spliced pair out.
 */
final class PublicInterfaceAddress {
    private PublicInterfaceAddress() {}

    static Optional<InetAddress> find() {
        try {
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nic.isUp() || nic.isLoopback()) {
                    continue;
                }
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    if (address instanceof Inet4Address && isPublic(address) && bindable(address)) {
                        return Optional.of(address);
                    }
                }
            }
        } catch (SocketException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /** The splice module's rule (PublicEchoHubs.isPublic), for IPv4. */
    static boolean isPublic(InetAddress address) {
        if (address.isSiteLocalAddress()
                || address.isLoopbackAddress()
                || address.isLinkLocalAddress()
                || address.isAnyLocalAddress()
                || address.isMulticastAddress()) {
            return false;
        }
        byte[] a = address.getAddress();
        return !((a[0] & 0xff) == 100 && (a[1] & 0xc0) == 64); // 100.64.0.0/10: carrier-grade NAT
    }

    private static boolean bindable(InetAddress address) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(address, 0));
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
