package io.traverse.identity;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The addresses of this host's interfaces with their real netmasks (paper §3.2.1). The netmask is
 * what lets the address-order heuristic tell "on my link" from "some other site's 10.0.0.0/8".
 */
public final class LocalInterfaces {
    /** One address of an interface and the length of its network prefix. */
    public record LocalAddress(InetAddress address, int prefixLength) {
        public Subnet subnet() {
            return Subnet.of(address, prefixLength);
        }

        public AddressClass addressClass() {
            return AddressClass.of(address);
        }
    }

    private final List<LocalAddress> addresses;

    public LocalInterfaces(List<LocalAddress> addresses) {
        this.addresses = List.copyOf(addresses);
    }

    /** Every address of every interface that is up. */
    public static LocalInterfaces scan() throws SocketException {
        List<LocalAddress> found = new ArrayList<>();
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp()) {
                continue;
            }
            for (InterfaceAddress ia : nic.getInterfaceAddresses()) {
                InetAddress address = ia.getAddress();
                if (address.isAnyLocalAddress() || address.isMulticastAddress()) {
                    continue;
                }
                found.add(new LocalAddress(withoutZone(address), ia.getNetworkPrefixLength()));
            }
        }
        return new LocalInterfaces(found);
    }

    /** The JDK names the interface of every IPv6 address; only link-local addresses need that. */
    private static InetAddress withoutZone(InetAddress address) throws SocketException {
        if (address instanceof Inet6Address v6 && v6.getScopeId() != 0 && !v6.isLinkLocalAddress()) {
            try {
                return InetAddress.getByAddress(v6.getAddress());
            } catch (java.net.UnknownHostException e) {
                throw new SocketException(e.getMessage()); // cannot happen: 16 bytes
            }
        }
        return address;
    }

    /**
     * The interfaces a listener bound to {@code bindAddress} is reachable on: all of them for a
     * wildcard, else just that address with the prefix of the subnet it sits in (an address such
     * as 127.0.0.5 is routed by 127.0.0.1/8 without being assigned to an interface).
     */
    public static LocalInterfaces forBindAddress(InetAddress bindAddress, LocalInterfaces all) {
        if (bindAddress.isAnyLocalAddress()) {
            return all;
        }
        for (LocalAddress candidate : all.addresses) {
            if (candidate.address.equals(bindAddress)) {
                return new LocalInterfaces(List.of(candidate));
            }
        }
        for (LocalAddress candidate : all.addresses) {
            if (candidate.subnet().contains(bindAddress)) {
                return new LocalInterfaces(List.of(new LocalAddress(bindAddress, candidate.prefixLength)));
            }
        }
        return new LocalInterfaces(List.of(new LocalAddress(bindAddress, bindAddress.getAddress().length * 8)));
    }

    public List<LocalAddress> addresses() {
        return addresses;
    }

    /**
     * The addresses worth telling others about: link-local ones need a zone to be used and mean
     * nothing off the link, so they stay out.
     */
    public List<InetAddress> advertisable() {
        List<InetAddress> out = new ArrayList<>();
        for (LocalAddress a : addresses) {
            if (a.addressClass() != AddressClass.LINK_LOCAL && !out.contains(a.address)) {
                out.add(a.address);
            }
        }
        return out;
    }

    /** True if the address lies in the subnet of one of our non-loopback interfaces. */
    public boolean isOnLink(InetAddress target) {
        for (LocalAddress a : addresses) {
            if (a.addressClass() != AddressClass.LOOPBACK && a.subnet().contains(target)) {
                return true;
            }
        }
        return false;
    }

    /** True if this exact address is one of ours. */
    public boolean owns(InetAddress address) {
        for (LocalAddress a : addresses) {
            if (a.address.equals(address)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("[");
        for (LocalAddress a : addresses) {
            if (sb.length() > 1) {
                sb.append(", ");
            }
            sb.append(IpLiterals.format(a.address)).append('/').append(a.prefixLength);
        }
        return sb.append(']').toString();
    }
}
