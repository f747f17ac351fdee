package io.traverse.identity;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order in which to try a target's direct addresses (paper §3.2.2, made sharper with real
 * netmasks): addresses on one of our links first, then public ones, then private ones of other
 * networks, which only work inside routed sites. Loopback goes first when the target is on this
 * host and last otherwise; link-local goes last. Within a rank the target's own order is kept.
 *
 * <p>This saves time, never correctness: the identity handshake rejects the wrong machine at any
 * address, and staggered attempts bound the cost of a dead one.
 */
public final class AddressOrdering {
    private AddressOrdering() {
    }

    public static List<InetSocketAddress> order(NodeIdentity target, LocalInterfaces local) {
        List<InetSocketAddress> candidates = target.directAddresses();
        boolean sameHost = isOnThisHost(candidates, local);
        List<InetSocketAddress> ordered = new ArrayList<>(candidates);
        ordered.sort(Comparator.comparingInt(a -> rank(a, local, sameHost)));
        return ordered;
    }

    static int rank(InetSocketAddress address, LocalInterfaces local, boolean sameHost) {
        AddressClass cls = AddressClass.of(address.getAddress());
        if (cls == AddressClass.LOOPBACK) {
            return sameHost ? 0 : 5;
        }
        if (cls == AddressClass.LINK_LOCAL) {
            return 6;
        }
        if (local.isOnLink(address.getAddress())) {
            return 1;
        }
        return cls == AddressClass.PUBLIC ? 2 : 3;
    }

    /**
     * A target is on this host if it shares one of our non-loopback addresses, or if loopback is
     * all it offers (then trying it is the only option anyway).
     */
    static boolean isOnThisHost(List<InetSocketAddress> candidates, LocalInterfaces local) {
        boolean onlyLoopback = true;
        for (InetSocketAddress a : candidates) {
            if (!a.getAddress().isLoopbackAddress()) {
                onlyLoopback = false;
                if (local.owns(a.getAddress())) {
                    return true;
                }
            }
        }
        return onlyLoopback;
    }
}
