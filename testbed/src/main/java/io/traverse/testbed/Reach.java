package io.traverse.testbed;

/**
 * How one machine of a {@link SiteLine} is connected (paper Table 2): what addresses it has, whether
 * connections from outside its site reach it, and whether it can open connections to the
 * internet. {@link ExpectedPath} derives every expectation of a multi-site network from these
 * three facts, and {@link MultiSiteNetwork} builds the machines to match them.
 */
public enum Reach {
    /** Multi-homed (MH): a public address that accepts connections, and a private site address. */
    OPEN(true, true, true),
    /** Multi-homed behind a firewall (MH, FW): its public interface silently drops new inbound connections. */
    FIREWALLED(true, false, true),
    /** A private address behind a masquerading router (NAT), which resets connections from outside. */
    NAT(false, false, true),
    /** A private address behind a masquerading router whose firewall drops connections from outside (FW, NAT). */
    NAT_FIREWALLED(false, false, true),
    /**
     * A private address behind a masquerading router that randomises source ports (as many
     * carrier and mobile NATs do), which resets connections from outside: its mapped port cannot
     * be predicted, so it cannot splice.
     */
    NAT_RANDOM_PORTS(false, false, true),
    /**
     * A private address behind a home router that is itself behind a carrier-grade NAT (an address
     * from 100.64.0.0/10 on its outside): ports are kept through both, and each router's own stack
     * answers an unsolicited SYN with a reset, the carrier's included (nothing listens there).
     */
    NAT_BEHIND_CARRIER(false, false, true),
    /** Non-routed (NR): a private address only, no route beyond its site; it reaches its frontend and nothing else. */
    NON_ROUTED(false, false, false),
    /**
     * Reached only through SSH (the paper's Hiroshi, §4): a private address behind a router that
     * lets in nothing but SSH (forwarded to the frontend's sshd) and lets nothing out but answers.
     * A frontend like this cannot dial out, so other hubs link to its hub through its sshd; a node
     * like this is non-routed, and nodes elsewhere that dial out reach it through that sshd.
     */
    SSH_ONLY(false, false, false),
    /**
     * Whose only way out is a real HTTP proxy allowing CONNECT: a private address behind a
     * router that drops everything the site sends out except what its HTTP proxy relays, and drops
     * every new connection in. For frontends only, with the node on it ({@link #ON_FRONTEND}): the
     * site runs no hub, its node links to a hub of another site through the proxy's CONNECT tunnel,
     * and every connection to or from it is routed.
     */
    PROXY_ONLY(false, false, false),
    /** For nodes only: the site has no separate nodes, the node runs on the frontend (the paper's desktop). */
    ON_FRONTEND(false, false, false);

    private final boolean publicAddress;
    private final boolean acceptsFromOutside;
    private final boolean dialsOut;

    Reach(boolean publicAddress, boolean acceptsFromOutside, boolean dialsOut) {
        this.publicAddress = publicAddress;
        this.acceptsFromOutside = acceptsFromOutside;
        this.dialsOut = dialsOut;
    }

    /** True if the machine has an address on the internet of its own (besides its private one). */
    public boolean hasPublicAddress() {
        return publicAddress;
    }

    /** True if a connection from another site to the machine's listening address gets through. */
    public boolean acceptsFromOutside() {
        return acceptsFromOutside;
    }

    /** True if a machine that dials out reaches this one through its site's sshd (and only so). */
    public boolean reachedThroughSsh() {
        return this == SSH_ONLY;
    }

    /**
     * True if a connection it opens to the internet leaves from a port that can be predicted: its
     * own (a public address, or NATs that keep ports). Splicing needs that at both ends.
     */
    public boolean keepsPorts() {
        return dialsOut && this != NAT_RANDOM_PORTS;
    }

    /** True if the machine can open connections to public addresses. */
    public boolean dialsOut() {
        return dialsOut;
    }
}
