package io.traverse.testbed;

import java.net.Inet4Address;
import java.util.ArrayList;
import java.util.List;

/**
 * The gateway of a {@link Site}: a namespace with a public interface {@value #WAN} on the
 * {@link Internet}, a bridge {@value #LAN} for the site's hosts, IPv4 forwarding, and netfilter
 * NAT and firewall rules (tables {@code ip tvb-nat} and {@code inet tvb-firewall}), reloaded
 * atomically whenever the settings change. It starts as a plain masquerading home router:
 * outbound connections work, inbound ones reach the router itself and are reset.
 */
public final class NatRouter {
    /** The public interface. */
    public static final String WAN = "wan0";
    /** The bridge of the site's network. */
    public static final String LAN = "lan";

    private static final String NAT_TABLE = "tvb-nat";

    private final NetworkNamespace namespace;
    private final Inet4Address publicAddress;
    private final Inet4Address lanAddress;
    private final List<PortForward> forwards = new ArrayList<>();
    private NatMode nat = NatMode.MASQUERADE;
    private Firewall firewall = Firewall.open();
    private int lanPorts;

    private NatRouter(NetworkNamespace namespace, Inet4Address publicAddress, Inet4Address lanAddress) {
        this.namespace = namespace;
        this.publicAddress = publicAddress;
        this.lanAddress = lanAddress;
    }

    /** Makes {@code ns} the router between {@code internet} and a network from {@code lan} (taking its first address). */
    static NatRouter attach(NetworkNamespace ns, Internet internet, AddressPool lan) {
        return build(ns, internet.attach(ns, WAN), lan);
    }

    /**
     * Makes {@code ns} a router whose outside is a host of {@code outer}'s site (a home router behind
     * a carrier-grade NAT), with a network from {@code lan} inside.
     */
    static NatRouter attachBehind(NetworkNamespace ns, NatRouter outer, AddressPool outerLan, AddressPool lan) {
        Inet4Address wanAddress = outerLan.next();
        outer.connect(ns, WAN, outerLan.withPrefix(wanAddress), true);
        return build(ns, wanAddress, lan);
    }

    private static NatRouter build(NetworkNamespace ns, Inet4Address wanAddress, AddressPool lan) {
        Inet4Address lanAddress = lan.next();
        ns.ip("link", "add", LAN, "type", "bridge");
        ns.addAddress(LAN, lan.withPrefix(lanAddress));
        ns.setUp(LAN);
        ns.enableForwarding();
        NatRouter router = new NatRouter(ns, wanAddress, lanAddress);
        router.apply();
        return router;
    }

    /**
     * Plugs a host namespace into the site's bridge as interface {@code ifName}, with its address
     * and, if {@code routed}, a default route through this router.
     */
    synchronized void connect(NetworkNamespace host, String ifName, String addressWithPrefix, boolean routed) {
        String port = "h" + (++lanPorts);
        host.ip("link", "add", ifName, "type", "veth", "peer", "name", port, "netns", namespace.name());
        namespace.ip("link", "set", port, "master", LAN, "up");
        host.addAddress(ifName, addressWithPrefix);
        host.setUp(ifName);
        if (routed) {
            host.addRoute("default", lanAddress);
        }
    }

    public NetworkNamespace namespace() {
        return namespace;
    }

    /**
     * The router's address on its outside: on the internet, what the site's outbound connections
     * come from; behind a carrier-grade NAT, its address in the carrier's network.
     */
    public Inet4Address publicAddress() {
        return publicAddress;
    }

    /** The router's address on the site's network: every host's default gateway. */
    public Inet4Address lanAddress() {
        return lanAddress;
    }

    public synchronized NatMode nat() {
        return nat;
    }

    public synchronized Firewall firewall() {
        return firewall;
    }

    public synchronized List<PortForward> forwards() {
        return List.copyOf(forwards);
    }

    /** Changes how outbound connections are rewritten. */
    public synchronized NatRouter nat(NatMode mode) {
        nat = mode;
        apply();
        return this;
    }

    /** Forwards TCP {@code publicPort} of the public address to {@code target:targetPort}. */
    public NatRouter forwardPort(int publicPort, Host target, int targetPort) {
        return forward(PortForward.tcp(publicPort, target.address(), targetPort));
    }

    /** Adds a port forward. */
    public synchronized NatRouter forward(PortForward forward) {
        for (PortForward f : forwards) {
            if (f.protocol().equals(forward.protocol()) && f.publicPort() == forward.publicPort()) {
                throw new IllegalArgumentException(forward.protocol() + " port " + forward.publicPort()
                        + " is already forwarded to " + f.target().getHostAddress() + ":" + f.targetPort());
            }
        }
        forwards.add(forward);
        apply();
        return this;
    }

    /** Removes every port forward. */
    public synchronized NatRouter clearForwards() {
        forwards.clear();
        apply();
        return this;
    }

    /** Filters new connections from the internet, to the router and to its site. */
    public synchronized NatRouter firewall(Firewall policy) {
        firewall = policy;
        apply();
        return this;
    }

    /** Loads the NAT and firewall tables in one transaction. */
    private void apply() {
        namespace.nftScript(
                natTable().replaceScript() + firewall.table(WAN, true).replaceScript());
    }

    private NftTable natTable() {
        StringBuilder body = new StringBuilder();
        body.append("  chain prerouting {\n").append("    type nat hook prerouting priority dstnat; policy accept;\n");
        for (PortForward f : forwards) {
            body.append("    ").append(f.rule(WAN)).append('\n');
        }
        body.append("  }\n")
                .append("  chain postrouting {\n")
                .append("    type nat hook postrouting priority srcnat; policy accept;\n");
        String masquerade = nat.rule(WAN);
        if (masquerade != null) {
            body.append("    ").append(masquerade).append('\n');
        }
        body.append("  }\n");
        return new NftTable("ip", NAT_TABLE, body.toString());
    }

    @Override
    public String toString() {
        return "NatRouter[" + namespace.label() + " " + publicAddress.getHostAddress() + ", " + nat + ", " + firewall
                + ", forwards " + forwards + "]";
    }
}
