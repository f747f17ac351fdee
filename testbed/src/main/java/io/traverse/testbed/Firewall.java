package io.traverse.testbed;

/**
 * What a namespace does with new connections arriving on its outside interface: let them in, drop
 * them silently (the sender waits until it times out), or reject them (TCP reset, ICMP
 * otherwise). Replies to connections made from inside always pass, and so do connections to a
 * port forward: opening one is a decision to let them in.
 */
public final class Firewall {
    /** The fate of a new inbound connection. */
    public enum Inbound {
        ACCEPT,
        DROP,
        REJECT
    }

    /** The name of the nftables table a firewall owns. */
    static final String TABLE = "tvb-firewall";

    private static final Firewall OPEN = new Firewall(Inbound.ACCEPT);
    private static final Firewall DROPPING = new Firewall(Inbound.DROP);
    private static final Firewall REJECTING = new Firewall(Inbound.REJECT);

    private final Inbound inbound;
    private final boolean dropsOutbound;

    private Firewall(Inbound inbound) {
        this(inbound, false);
    }

    private Firewall(Inbound inbound, boolean dropsOutbound) {
        this.inbound = inbound;
        this.dropsOutbound = dropsOutbound;
    }

    /**
     * This policy, and on a router also no new connection from its site out to the internet: only
     * answers leave (to connections let in, e.g. by a port forward). A site that lets only SSH in.
     */
    public Firewall droppingOutbound() {
        return new Firewall(inbound, true);
    }

    /** True if a router with this policy lets no new connection out of its site. */
    public boolean dropsOutbound() {
        return dropsOutbound;
    }

    /** No filtering. */
    public static Firewall open() {
        return OPEN;
    }

    /** New inbound connections vanish: no answer at all, as most site firewalls do. */
    public static Firewall dropInbound() {
        return DROPPING;
    }

    /** New inbound connections are refused at once. */
    public static Firewall rejectInbound() {
        return REJECTING;
    }

    public Inbound inbound() {
        return inbound;
    }

    /**
     * The table {@code inet tvb-firewall} for a namespace whose outside is {@code outsideInterface}:
     * its input chain guards the namespace itself; with {@code router}, a forward chain also guards
     * the networks behind it.
     */
    NftTable table(String outsideInterface, boolean router) {
        if (inbound == Inbound.ACCEPT && !(router && dropsOutbound)) {
            return new NftTable("inet", TABLE, "");
        }
        StringBuilder body = new StringBuilder();
        chain(body, "input", outsideInterface, false);
        if (router) {
            chain(body, "forward", outsideInterface, true);
        }
        return new NftTable("inet", TABLE, body.toString());
    }

    private void chain(StringBuilder body, String hook, String outside, boolean forward) {
        String iif = "iifname \"" + outside + "\" ";
        body.append("  chain ")
                .append(hook)
                .append(" {\n")
                .append("    type filter hook ")
                .append(hook)
                .append(" priority filter; policy accept;\n")
                .append("    ")
                .append(iif)
                .append("ct state established,related accept\n");
        if (forward) {
            body.append("    ").append(iif).append("ct status dnat accept\n");
        }
        if (forward && dropsOutbound) {
            body.append("    oifname \"").append(outside).append("\" ct state new drop\n");
        }
        if (inbound == Inbound.ACCEPT) {
            // nothing more to filter inbound
        } else if (inbound == Inbound.DROP) {
            body.append("    ").append(iif).append("ct state new drop\n");
        } else {
            body.append("    ")
                    .append(iif)
                    .append("ct state new meta l4proto tcp reject with tcp reset\n")
                    .append("    ")
                    .append(iif)
                    .append("ct state new reject with icmpx type admin-prohibited\n");
        }
        body.append("  }\n");
    }

    @Override
    public String toString() {
        return "Firewall[" + inbound.name().toLowerCase(java.util.Locale.ROOT) + " inbound"
                + (dropsOutbound ? ", drop outbound" : "") + "]";
    }
}
