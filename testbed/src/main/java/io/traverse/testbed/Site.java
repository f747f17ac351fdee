package io.traverse.testbed;

import java.net.Inet4Address;

/**
 * A private network behind a {@link NatRouter}: hosts on one subnet (a bridge in the router's
 * namespace), each in its own namespace with the router as default gateway. Sites may reuse the
 * same private range; that is how tests meet two machines with the same address.
 */
public final class Site {
    private final String label;
    private final AddressPool lan;
    private final NatRouter router;

    private Site(String label, AddressPool lan, NatRouter router) {
        this.label = label;
        this.lan = lan;
        this.router = router;
    }

    static Site create(String label, AddressPool lan, NetworkNamespace routerNamespace, Internet internet) {
        return new Site(label, lan, NatRouter.attach(routerNamespace, internet, lan));
    }

    /**
     * A site behind this one: its router's outside is a host of this site's network, as a home
     * router behind a carrier-grade NAT. Its hosts go out through both routers.
     */
    public Site siteBehind(String innerLabel, String lanCidr) {
        AddressPool inner = new AddressPool(lanCidr); // checked before anything is made
        NetworkNamespace ns = router.namespace().testbed().namespace(innerLabel + "-router");
        return new Site(innerLabel, inner, NatRouter.attachBehind(ns, router, lan, inner));
    }

    public String label() {
        return label;
    }

    /** The site's network, e.g. {@code 10.0.0.0/24}. */
    public String lan() {
        return lan.toString();
    }

    public NatRouter router() {
        return router;
    }

    /** A new host with the next free address of the site's network. */
    public Host host(String hostLabel) {
        return plug(hostLabel, null, true);
    }

    /**
     * A new host with the next free address of the site's network and no route beyond it: it
     * reaches the site's machines only, like a non-routed cluster node (paper §2.2).
     */
    public Host nonRoutedHost(String hostLabel) {
        return plug(hostLabel, null, false);
    }

    /** A new host with a chosen address of the site's network. */
    public Host host(String hostLabel, String address) {
        return plug(hostLabel, address, true);
    }

    private Host plug(String hostLabel, String address, boolean routed) {
        Inet4Address ip = address == null ? lan.next() : lan.claim(address);
        NetworkNamespace ns = router.namespace().testbed().namespace(label + "-" + hostLabel);
        router.connect(ns, "eth0", lan.withPrefix(ip), routed);
        return new Host(hostLabel, ns, ip, "eth0");
    }

    @Override
    public String toString() {
        return "Site[" + label + " " + lan + " behind " + router.publicAddress().getHostAddress() + "]";
    }
}
