package io.traverse.cli.demo;

import io.traverse.firewall.FirewallRule;
import java.util.List;

/**
 * One node of the demo topology: a name, the address it listens on (one loopback /24 per site,
 * or an interface address of this machine that a hub would call public), its simulated firewall,
 * whether its published address is misleading (lists another node's endpoint first, as
 * overlapping private ranges at two sites would), and whether the demo's sshd leads to it (every
 * node then has a tunnel rule for its address).
 */
record DemoNode(
        String name,
        String site,
        String address,
        List<FirewallRule> firewall,
        boolean misleadingAddress,
        boolean throughSsh) {
    DemoNode(String name, String site, String address, List<FirewallRule> firewall, boolean misleadingAddress) {
        this(name, site, address, firewall, misleadingAddress, false);
    }

    String describeFirewall() {
        if (firewall.isEmpty()) {
            return "open";
        }
        return String.join(", ", firewall.stream().map(FirewallRule::toString).toList());
    }

    /** True if the node listens on a loopback address (and sends from it, to loopback). */
    boolean onLoopback() {
        return address.startsWith("127.");
    }

    /**
     * True if the node's hub sees it at a public address, which the splice module needs: a node
     * on loopback is seen at a loopback address, which a peer elsewhere could not send to.
     */
    boolean spliceable() {
        return !onLoopback();
    }
}
