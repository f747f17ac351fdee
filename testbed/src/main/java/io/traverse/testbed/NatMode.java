package io.traverse.testbed;

/** How a {@link NatRouter} rewrites connections leaving its site. */
public enum NatMode {
    /** No rewriting: private source addresses leave as they are, so nobody outside can answer them. */
    NONE(null),
    /**
     * Linux masquerade: the source address becomes the router's public one and the source port is
     * kept where it is free (endpoint-independent mapping, also through two NATs in a row).
     */
    MASQUERADE("masquerade"),
    /** Masquerade with randomised source ports: the mapped port cannot be predicted. */
    MASQUERADE_RANDOM("masquerade random,fully-random");

    private final String statement;

    NatMode(String statement) {
        this.statement = statement;
    }

    /** The nft postrouting rule for traffic leaving through {@code outsideInterface}, or null for none. */
    String rule(String outsideInterface) {
        return statement == null ? null : "oifname \"" + outsideInterface + "\" " + statement;
    }
}
