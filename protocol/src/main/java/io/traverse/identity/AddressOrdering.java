package io.traverse.identity;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Which of a target's direct addresses to try, and in which order (paper §3.2.2, made sharper with
 * real netmasks): addresses on one of our links first, then public ones, then private ones of
 * other networks, which only work inside routed sites; link-local last. Within a rank the
 * target's own order is kept.
 *
 * <p>Some addresses are left out because they cannot lead to the target: when the target does not
 * run on this host, its loopback addresses and any interface address of its that is also one of
 * ours (a private range reused at another site) would only reach this host. Whether the target
 * runs here is told by its {@link HostKey}; a target without one (or a caller without one) is on
 * this host if every address it has besides loopback is one of ours. On this host, loopback goes
 * first, IPv4 before IPv6.
 *
 * <p>The order saves time, never correctness: the identity handshake rejects the wrong machine at
 * any address, and staggered attempts bound the cost of a dead one.
 */
public final class AddressOrdering {
    /**
     * The addresses to dial, best first, and the ones left out with the reason, for messages.
     *
     * @param onlyOtherNetworksPrivate {@link #onlyOtherNetworksPrivate} of {@code order}: worked out once per target
     */
    public record Candidates(List<InetSocketAddress> order, List<String> skipped, boolean onlyOtherNetworksPrivate) {
        public Candidates {
            order = List.copyOf(order);
            skipped = List.copyOf(skipped);
        }
    }

    private AddressOrdering() {}

    /** The order alone, for a caller that knows only its reachable interfaces and has no host key. */
    public static List<InetSocketAddress> order(NodeIdentity target, LocalInterfaces local) {
        return candidates(target, local, local, null).order();
    }

    /**
     * @param reachable the interfaces the caller's node uses (its bind address, or all)
     * @param host      every interface of this host: an address among them reaches this host
     * @param hostKey   this host's {@link HostKey}, or null if unknown
     */
    public static Candidates candidates(
            NodeIdentity target, LocalInterfaces reachable, LocalInterfaces host, String hostKey) {
        boolean sameHost = isOnThisHost(target, host, hostKey);
        List<InetSocketAddress> kept = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (InetSocketAddress a : target.directAddresses()) {
            // Externals are forwarders the target named (a NAT, a tunnel on this very host): always tried.
            boolean interfaceAddress = !target.externals().contains(a);
            if (!sameHost && interfaceAddress) {
                if (a.getAddress().isLoopbackAddress()) {
                    skipped.add(IpLiterals.formatEndpoint(a.getAddress(), a.getPort()) + " (loopback of another host)");
                    continue;
                }
                if (host.owns(a.getAddress())) {
                    skipped.add(IpLiterals.formatEndpoint(a.getAddress(), a.getPort())
                            + " (an address of this host; the target runs elsewhere)");
                    continue;
                }
            }
            kept.add(a);
        }
        kept.sort(Comparator.comparingInt(a -> rank(a, reachable, sameHost)));
        return new Candidates(kept, skipped, onlyOtherNetworksPrivate(kept, reachable));
    }

    /**
     * True if every one of {@code order} is a private or link-local address of a network none of
     * {@code reachable}'s interfaces is on: it leads somewhere only inside a routed site or a VPN.
     */
    public static boolean onlyOtherNetworksPrivate(List<InetSocketAddress> order, LocalInterfaces reachable) {
        // Rank 4: private, not on one of our links; 6: link-local. Loopback (5 only for another host) is skipped
        // before.
        return !order.isEmpty()
                && order.stream().mapToInt(a -> rank(a, reachable, false)).allMatch(r -> r == 4 || r == 6);
    }

    static int rank(InetSocketAddress address, LocalInterfaces local, boolean sameHost) {
        AddressClass cls = AddressClass.of(address.getAddress());
        if (cls == AddressClass.LOOPBACK) {
            // On this host IPv4 loopback first: the kernel's shorter path, and the one plain clients use.
            return sameHost ? (address.getAddress() instanceof java.net.Inet6Address ? 1 : 0) : 5;
        }
        if (cls == AddressClass.LINK_LOCAL) {
            return 6;
        }
        if (local.isOnLink(address.getAddress())) {
            return 2;
        }
        return cls == AddressClass.PUBLIC ? 3 : 4;
    }

    /**
     * True if the target runs in this host's network stack: the same host key when both are known;
     * otherwise if every interface address it has besides loopback is one of ours (loopback alone
     * counts too: then trying it is the only option anyway). One shared address is not enough: a
     * private range reused at another site shares addresses by chance.
     */
    public static boolean isOnThisHost(NodeIdentity target, LocalInterfaces host, String hostKey) {
        if (hostKey != null && target.hostKey().isPresent()) {
            return hostKey.equals(target.hostKey().get());
        }
        for (InetSocketAddress a : target.addresses()) {
            if (!a.getAddress().isLoopbackAddress() && !host.owns(a.getAddress())) {
                return false;
            }
        }
        return !target.addresses().isEmpty() || target.externals().isEmpty();
    }
}
