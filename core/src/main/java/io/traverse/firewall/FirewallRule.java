package io.traverse.firewall;

import io.traverse.identity.Subnet;
import java.net.InetAddress;
import java.util.Locale;

/**
 * One rule of a simulated firewall: what to do with connections from a source network.
 * Text form {@code ACTION:NETWORK}, e.g. {@code allow:127.0.3.0/24}, {@code deny:all}.
 */
public record FirewallRule(Action action, Subnet network) {
    /** What happens to a matching connection. */
    public enum Action {
        /** Let it through. */
        ALLOW,
        /** Refuse it at once with a REFUSED answer that names the rule (like a firewall's TCP reset). */
        DENY,
        /** Never answer it, so the client waits until it gives up (like a firewall that drops SYNs). */
        DROP
    }

    /** {@code network == null} matches every source. */
    public FirewallRule {
        if (action == null) {
            throw new IllegalArgumentException("firewall rule needs an action");
        }
    }

    public static FirewallRule allow(String network) {
        return new FirewallRule(Action.ALLOW, networkOf(network));
    }

    public static FirewallRule deny(String network) {
        return new FirewallRule(Action.DENY, networkOf(network));
    }

    public static FirewallRule drop(String network) {
        return new FirewallRule(Action.DROP, networkOf(network));
    }

    /**
     * Parses {@code allow:NETWORK}, {@code deny:NETWORK} or {@code drop:NETWORK}, where NETWORK is
     * {@code all}, an address or {@code address/prefix}.
     */
    public static FirewallRule parse(String text) {
        String trimmed = text.trim();
        int colon = trimmed.indexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException(
                    "firewall rule '" + text + "' must look like allow:NETWORK, deny:NETWORK or drop:NETWORK");
        }
        String actionText = trimmed.substring(0, colon).toLowerCase(Locale.ROOT);
        Action action = switch (actionText) {
            case "allow" -> Action.ALLOW;
            case "deny" -> Action.DENY;
            case "drop" -> Action.DROP;
            default ->
                throw new IllegalArgumentException(
                        "firewall rule '" + text + "': action '" + actionText + "' is not allow, deny or drop");
        };
        try {
            return new FirewallRule(action, networkOf(trimmed.substring(colon + 1)));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("firewall rule '" + text + "': " + e.getMessage(), e);
        }
    }

    private static Subnet networkOf(String text) {
        String trimmed = text.trim();
        return trimmed.equalsIgnoreCase("all") || trimmed.equals("*") ? null : Subnet.parse(trimmed);
    }

    public boolean matches(InetAddress source) {
        return network == null || network.contains(source);
    }

    @Override
    public String toString() {
        return action.name().toLowerCase(Locale.ROOT) + ":" + (network == null ? "all" : network.toString());
    }
}
