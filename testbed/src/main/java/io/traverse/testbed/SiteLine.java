package io.traverse.testbed;

import java.util.regex.Pattern;

/**
 * One site of a multi-site network, as one line of the paper's Table 2: its name, how its
 * frontend and its compute nodes are connected, and its private range (sites may share a range;
 * that is on purpose: it tests the identity check). The frontend runs the site's hub.
 *
 * <pre>{@code
 * SiteLine.of("grid5000", Reach.FIREWALLED, Reach.NON_ROUTED, "10.0.0.0/24")
 * }</pre>
 *
 * @param name         lower-case letters, digits and '-', at most 12 characters (it names namespaces)
 * @param frontend     how the frontend is connected
 * @param nodes        how the compute nodes are connected, or {@link Reach#ON_FRONTEND}
 * @param privateRange the site's network, e.g. {@code 10.0.0.0/24}
 */
public record SiteLine(String name, Reach frontend, Reach nodes, String privateRange) {
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,11}");

    public SiteLine {
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "site name '" + name + "' must be 1-12 lower-case letters, digits or '-', starting with a letter");
        }
        if (frontend == Reach.NON_ROUTED || frontend == Reach.ON_FRONTEND) {
            throw new IllegalArgumentException(
                    "the frontend of site " + name + " runs its hub and cannot be " + frontend);
        }
        if (nodes == Reach.SSH_ONLY && frontend != Reach.SSH_ONLY) {
            throw new IllegalArgumentException("the nodes of site " + name + " are reached through the frontend's sshd:"
                    + " its frontend must be " + Reach.SSH_ONLY + " too");
        }
        if ((frontend == Reach.PROXY_ONLY && nodes != Reach.ON_FRONTEND) || nodes == Reach.PROXY_ONLY) {
            throw new IllegalArgumentException(
                    "site " + name + ": a " + Reach.PROXY_ONLY + " site is one machine, its node on the" + " frontend ("
                            + Reach.PROXY_ONLY + ", " + Reach.ON_FRONTEND + ")");
        }
        if (frontend == Reach.SSH_ONLY && nodes != Reach.SSH_ONLY && nodes != Reach.ON_FRONTEND) {
            throw new IllegalArgumentException("site " + name + " lets only SSH in: its nodes must be " + Reach.SSH_ONLY
                    + " or " + Reach.ON_FRONTEND);
        }
        new AddressPool(privateRange); // checks it
    }

    public static SiteLine of(String name, Reach frontend, Reach nodes, String privateRange) {
        return new SiteLine(name, frontend, nodes, privateRange);
    }

    /** How the site's compute node is connected (the frontend's reach for {@link Reach#ON_FRONTEND}). */
    public Reach node() {
        return nodes == Reach.ON_FRONTEND ? frontend : nodes;
    }

    /** True if the site lets in only SSH, to its frontend's sshd ({@link Reach#SSH_ONLY}). */
    public boolean sshOnly() {
        return frontend == Reach.SSH_ONLY;
    }

    /**
     * True if the site's only way out is an HTTP proxy on its router ({@link Reach#PROXY_ONLY}): it
     * runs no hub, and its node links to another site's hub through the proxy.
     */
    public boolean proxyOnly() {
        return frontend == Reach.PROXY_ONLY;
    }

    /** True if the site runs a hub on its frontend (every site but a proxy-only one). */
    public boolean runsHub() {
        return !proxyOnly();
    }

    /** True if the node runs on the frontend machine itself. */
    public boolean nodeOnFrontend() {
        return nodes == Reach.ON_FRONTEND;
    }

    /** True if the site sits behind a masquerading router. */
    boolean behindNat() {
        return frontend == Reach.NAT
                || frontend == Reach.NAT_FIREWALLED
                || frontend == Reach.SSH_ONLY
                || frontend == Reach.PROXY_ONLY
                || frontend == Reach.NAT_RANDOM_PORTS
                || frontend == Reach.NAT_BEHIND_CARRIER;
    }
}
