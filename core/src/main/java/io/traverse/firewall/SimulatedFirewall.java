package io.traverse.firewall;

import java.net.InetAddress;
import java.util.List;

/**
 * A per-node firewall by source network, checked on every incoming direct connection (the paper's
 * §5 notes SmartSockets used this to emulate restricted sites on one cluster). The first matching
 * rule decides; no match means allow. Real firewalls live in the namespace testbed; this one lets
 * the demo and loopback tests build restricted topologies without root.
 */
public final class SimulatedFirewall {
    /** The decision for one source, with the rule that made it (null when no rule matched). */
    public record Verdict(FirewallRule.Action action, FirewallRule rule) {
        public String describe(InetAddress source) {
            String verb = switch (action) {
                case ALLOW -> "allows";
                case DENY -> "denies";
                case DROP -> "drops";
            };
            return "firewall rule " + (rule == null ? "(none)" : rule) + " " + verb + " source "
                    + source.getHostAddress();
        }
    }

    private static final Verdict OPEN = new Verdict(FirewallRule.Action.ALLOW, null);

    private final List<FirewallRule> rules;

    public SimulatedFirewall(List<FirewallRule> rules) {
        this.rules = List.copyOf(rules);
    }

    public Verdict check(InetAddress source) {
        for (FirewallRule rule : rules) {
            if (rule.matches(source)) {
                return new Verdict(rule.action(), rule);
            }
        }
        return OPEN;
    }

    public List<FirewallRule> rules() {
        return rules;
    }
}
