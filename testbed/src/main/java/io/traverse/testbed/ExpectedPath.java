package io.traverse.testbed;

import java.util.List;
import java.util.function.BiPredicate;

/**
 * What a multi-site network should do for a connection from one site's node to another's, derived
 * from the two {@link SiteLine}s alone: whether a plain socket gets through, and which module
 * should win. The module rules are one line each, tried in order, the first that holds wins —
 * the order the modules race in (paper §3.3: direct, reverse, splice, routed). A module that
 * learns a new way through adds its line here.
 */
public final class ExpectedPath {
    /**
     * One module and when it should win.
     *
     * @param firstMayBe the module that may win a pair's first connection instead, while the
     *                   rule's own path is still being set up; the upgrade probe then caches
     *                   {@code module}. Empty when the first connection wins with {@code module}
     *                   too.
     */
    public record ModuleRule(String module, String when, BiPredicate<Reach, Reach> holds, String firstMayBe) {
        public ModuleRule(String module, String when, BiPredicate<Reach, Reach> holds) {
            this(module, when, holds, "");
        }
    }

    /** The rules, in racing order; the last one always holds. */
    public static final List<ModuleRule> MODULE_RULES = List.of(
            new ModuleRule("direct", "the source can dial the target", (source, target) -> canDial(source, target)),
            // A node logs in at the sshd when it starts, and its direct attempt waits for that login: no relay wins
            // first.
            new ModuleRule(
                    "direct",
                    "the source dials the target through its site's sshd",
                    (source, target) -> source.dialsOut() && target.reachedThroughSsh()),
            new ModuleRule("reverse", "the target can dial the source", (source, target) -> canDial(target, source)),
            // The target's dial-back starts through the tunnel beside the plain address (which the site drops) while no
            // plain
            // connection has reached that network: a fresh source JVM there is dialled back, not relayed, the first
            // time too.
            new ModuleRule(
                    "reverse",
                    "the target dials the source back through the source's site's sshd",
                    (source, target) -> target.dialsOut() && source.reachedThroughSsh()),
            // Every reach that dials out is spliceable here (a dropping firewall on a public address, or a port-keeping
            // NAT), and
            // a hub of the network with a public address echoes their public sides. Routed starts beside splice at once
            // (splice needs several round trips), so it may win the first connection; splice, left running, is cached.
            new ModuleRule(
                    "splice",
                    "both dial out from ports that can be predicted (public address behind a dropping firewall,"
                            + " or NATs that keep ports)",
                    (source, target) -> source.keepsPorts() && target.keepsPorts(),
                    "routed"),
            // A proxy-only node neither accepts from outside nor dials out but through its proxy's CONNECT tunnel to
            // its hub,
            // so no rule above holds for it in either direction: it is reached, and reaches everyone, routed.
            new ModuleRule(
                    "routed",
                    "both reach their hubs (a proxy-only node through its HTTP proxy)",
                    (source, target) -> true));

    private ExpectedPath() {}

    /** True if a machine connected as {@code from} can open a TCP connection to the listening address of one connected as {@code to}, at another site. */
    public static boolean canDial(Reach from, Reach to) {
        return from.dialsOut() && to.acceptsFromOutside();
    }

    /** True if a plain {@code java.net.Socket} from {@code source}'s node reaches {@code target}'s node. */
    public static boolean plainSocketWorks(SiteLine source, SiteLine target) {
        return canDial(source.node(), target.node());
    }

    /** The rule that should win from {@code source}'s node to {@code target}'s. */
    public static ModuleRule expected(SiteLine source, SiteLine target) {
        for (ModuleRule rule : MODULE_RULES) {
            if (rule.holds().test(source.node(), target.node())) {
                return rule;
            }
        }
        throw new IllegalStateException("the last module rule must always hold");
    }
}
