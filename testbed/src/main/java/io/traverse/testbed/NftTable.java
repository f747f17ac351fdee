package io.traverse.testbed;

import java.util.regex.Pattern;

/**
 * One nftables table owned by one part of the testbed (the NAT of a router, a firewall, a
 * counter). Each part replaces only its own table, atomically, so parts — and later programs
 * such as miniupnpd with their own tables — coexist in a namespace.
 *
 * @param family nft family: {@code ip}, {@code ip6}, {@code inet}
 * @param name   table name, e.g. {@code tvb-nat}
 * @param body   chains, sets and counters, in nft's multi-line syntax
 */
public record NftTable(String family, String name, String body) {
    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9_-]{0,30}");

    public NftTable {
        if (!family.equals("ip") && !family.equals("ip6") && !family.equals("inet")) {
            throw new IllegalArgumentException("nft family '" + family + "' is not ip, ip6 or inet");
        }
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "nft table name '" + name + "' must be lower-case letters, digits, '_' or '-'");
        }
    }

    /** A script for {@code nft -f -} that replaces the table in one transaction (created first if absent). */
    public String replaceScript() {
        String id = family + " " + name;
        return "add table " + id + "\n"
                + "delete table " + id + "\n"
                + "table " + id + " {\n" + body + (body.endsWith("\n") ? "" : "\n") + "}\n";
    }

    /** A script that removes the table if present. */
    public String deleteScript() {
        String id = family + " " + name;
        return "add table " + id + "\ndelete table " + id + "\n";
    }
}
