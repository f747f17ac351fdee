package io.traverse.node;

import io.traverse.TraverseConfig;
import io.traverse.identity.AddressClass;
import io.traverse.identity.HostKey;
import io.traverse.identity.LocalInterfaces;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The node's identity as it changes after start: the identity at start, with the hub the link is
 * up to as its first hub hint and the external addresses modules advertise (mapped NAT ports).
 * Every change happens under {@link #lock}; readers take the latest without it.
 */
final class CurrentIdentity {
    /** The identity at start (configured hub hints); the hub link puts its hub first. */
    private final NodeIdentity base;
    /** Guards changes of {@link #identity} after start (hub link up, advertised externals). */
    private final Object lock = new Object();

    private volatile NodeIdentity identity;
    /** External addresses modules advertise at run time (mapped NAT ports), in the order they came. */
    private final Set<InetSocketAddress> advertisedExternals = new java.util.LinkedHashSet<>();
    /** The hub the link is up to (null before the first link): the identity's first hub hint. */
    private volatile InetSocketAddress linkedHub;

    CurrentIdentity(NodeIdentity base) {
        this.base = base;
        this.identity = base;
    }

    /** The identity at start: the addresses of {@code interfaces} and the configured externals and hubs. */
    static NodeIdentity atStart(NodeId id, int port, LocalInterfaces interfaces, TraverseConfig config) {
        NodeIdentity.Builder b =
                NodeIdentity.builder().id(id).hostKey(HostKey.local().orElse(null));
        List<InetAddress> advertised = new ArrayList<>(interfaces.advertisable());
        // Loopback last: it only helps callers on this host, and reads worst in the text form.
        advertised.sort(Comparator.comparing(a -> AddressClass.of(a) == AddressClass.LOOPBACK));
        for (InetAddress a : advertised) {
            b.address(new InetSocketAddress(a, port));
        }
        for (InetSocketAddress external : config.externals()) {
            b.external(
                    new InetSocketAddress(external.getAddress(), external.getPort() == 0 ? port : external.getPort()));
        }
        for (InetSocketAddress hub : config.hubs()) {
            if (!hub.isUnresolved()) {
                b.hub(hub);
            }
        }
        return b.build();
    }

    NodeIdentity current() {
        return identity;
    }

    void linkedTo(InetSocketAddress hub) {
        synchronized (lock) {
            linkedHub = hub;
            identity = withHub(hub);
        }
    }

    /** The identity at start plus the external addresses modules advertise now. */
    private NodeIdentity currentBase() {
        synchronized (lock) {
            if (advertisedExternals.isEmpty()) {
                return base;
            }
            List<InetSocketAddress> externals = new ArrayList<>(base.externals());
            for (InetSocketAddress a : advertisedExternals) {
                if (!externals.contains(a)) {
                    externals.add(a);
                }
            }
            return base.withExternals(externals);
        }
    }

    /** Adds or removes an advertised external address; false if it was there already (or not there). */
    boolean changeAdvertised(InetSocketAddress external, boolean add) {
        synchronized (lock) {
            boolean changed = add ? advertisedExternals.add(external) : advertisedExternals.remove(external);
            if (!changed) {
                return false;
            }
            InetSocketAddress hub = linkedHub;
            identity = hub == null ? currentBase() : withHub(hub);
            return true;
        }
    }

    /** This node's identity with {@code hub} as its first hub hint (the hub it is linked to). */
    NodeIdentity withHub(InetSocketAddress hub) {
        NodeIdentity current = currentBase();
        List<InetSocketAddress> hints = new ArrayList<>();
        hints.add(hub);
        for (InetSocketAddress h : current.hubs()) {
            if (!h.equals(hub)) {
                hints.add(h);
            }
        }
        return current.withHubs(hints);
    }
}
