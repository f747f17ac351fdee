package io.traverse.testbed;

import java.net.Inet4Address;

/**
 * The public network of a testbed: a namespace holding one bridge that every site router and
 * public host plugs into with a veth pair. Addresses come from {@value #PUBLIC_RANGE} only (the
 * benchmarking range of RFC 2544, never routed on the real internet), all on one link, so public
 * hosts reach each other without a router, and nothing outside the testbed is reachable.
 *
 * <p>With {@link WanLatency} (see {@link Testbed#wanLatency}) the bridge is a {@link WanSwitch}
 * instead: the same single link, but every frame is held for the one-way delay between the places
 * of its sender and receiver, as across a wide-area network.
 */
public final class Internet {
    /** Where every public address of the testbed comes from. */
    public static final String PUBLIC_RANGE = "198.18.0.0/15";

    private static final String BRIDGE = "wan";

    private final NetworkNamespace namespace;
    private final AddressPool addresses = new AddressPool(PUBLIC_RANGE);
    private final WanLatency latency;
    private final WanSwitch wan;
    private int ports;

    Internet(NetworkNamespace namespace, WanLatency latency) {
        this.namespace = namespace;
        this.latency = latency;
        if (latency.isNone()) {
            wan = null;
            namespace.ip("link", "add", BRIDGE, "type", "bridge");
            namespace.setUp(BRIDGE);
        } else {
            wan = namespace.testbed().track(WanSwitch.start(latency));
        }
    }

    /** The delays across this internet ({@link WanLatency#none()} for a plain bridge). */
    public WanLatency latency() {
        return latency;
    }

    /** What the WAN switch has forwarded, dropped and queued; empty without latency. */
    public java.util.Optional<String> switchStats() {
        return wan == null ? java.util.Optional.empty() : java.util.Optional.of(wan.stats());
    }

    /** The namespace of the internet's bridge (for packet captures or counters; empty with latency, whose switch is a process). */
    public NetworkNamespace namespace() {
        return namespace;
    }

    /** Plugs {@code ns} in through a new interface {@code ifName} with the next free public address; returns the address. */
    public Inet4Address attach(NetworkNamespace ns, String ifName) {
        return plug(ns, ifName, addresses.next());
    }

    /** Plugs {@code ns} in with a chosen public address, which must lie in {@value #PUBLIC_RANGE}. */
    public Inet4Address attach(NetworkNamespace ns, String ifName, String address) {
        return plug(ns, ifName, addresses.claim(address));
    }

    /** A machine with a public address directly on the internet: no NAT, no firewall. */
    public Host host(String label) {
        NetworkNamespace ns = namespace.testbed().namespace(label);
        return new Host(label, ns, attach(ns, "eth0"), "eth0");
    }

    private synchronized Inet4Address plug(NetworkNamespace ns, String ifName, Inet4Address address) {
        if (wan != null) {
            wan.port(ns, ifName);
            ns.addAddress(ifName, addresses.withPrefix(address));
            ns.setUp(ifName);
            return address;
        }
        String port = "p" + (++ports);
        // Both ends are created inside testbed namespaces, never in the host's own.
        ns.ip("link", "add", ifName, "type", "veth", "peer", "name", port, "netns", namespace.name());
        namespace.ip("link", "set", port, "master", BRIDGE, "up");
        ns.addAddress(ifName, addresses.withPrefix(address));
        ns.setUp(ifName);
        return address;
    }
}
