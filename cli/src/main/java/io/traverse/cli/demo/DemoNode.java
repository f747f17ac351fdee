package io.traverse.cli.demo;

import io.traverse.firewall.FirewallRule;
import java.util.List;

/**
 * One node of the demo topology: a name, the loopback address it listens on (one /24 per site),
 * its simulated firewall, and whether its published address is misleading (lists another node's
 * endpoint first, as overlapping private ranges at two sites would).
 */
record DemoNode(String name, String site, String address, List<FirewallRule> firewall, boolean misleadingAddress) {
    String describeFirewall() {
        if (firewall.isEmpty()) {
            return "open";
        }
        return String.join(", ", firewall.stream().map(FirewallRule::toString).toList());
    }
}
