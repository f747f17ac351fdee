package io.traverse.hub;

import java.util.Locale;

/**
 * The limits a hub refuses new work at, rather than collapse under it, each with the settings key
 * that sets it (docs/operations.md, "Admission limits"). What is already admitted is never touched:
 * a limit only ever refuses a new link, a new relayed connection or one request of a node (the node
 * keeps its link), or closes a connection that has not finished its handshake or its HTTP request.
 *
 * <p>Every refusal's reason has one form (docs/protocol.md, "OVERLOAD reasons"):
 * {@code OVERLOAD: <what is full> at hub <name>, the most <key> allows}, so that a user reading the
 * exception and an operator reading the log both see which limit and which key to change.
 */
public enum AdmissionLimit {
    /** Nodes linked to this hub (REJECT LIMIT). */
    NODES("traverse.hub.max.nodes"),
    /** Links accepted per second, over all new link handshakes (REJECT LIMIT). */
    LINK_RATE("traverse.hub.link.rate"),
    /** Relayed connections one node of this hub holds, as opener and as acceptor (RESET of the OPEN). */
    RELAYED_PER_NODE("traverse.hub.max.relayed.per.node"),
    /** Relayed connections of one node of this hub that wait for their ACCEPT or REFUSE (RESET of the OPEN). */
    SETUPS_PER_NODE("traverse.hub.max.setups.per.node"),
    /** Relayed connections with an end at a node of this hub, all together (RESET of the OPEN). */
    RELAYED("traverse.hub.max.relayed"),
    /** Side-channel requests of one node of this hub waiting for their answer (ERROR OVERLOAD to the sender). */
    SIDE_REQUESTS_PER_NODE("traverse.hub.max.pending.per.node"),
    /** Names one node of this hub holds (RESULT LIMIT of the NAME_BIND). */
    NAMES_PER_NODE("traverse.hub.max.names.per.node"),
    /** Lookups one node of this hub asks per second, after a burst (LOOKUP_RESULT LIMIT). */
    LOOKUPS_PER_NODE("traverse.hub.lookup.rate.per.node"),
    /** Connections on the link port in their handshake, or before their first HTTP request, all together (the longest-waiting is closed). */
    HANDSHAKES("traverse.hub.max.handshakes"),
    /** As {@link #HANDSHAKES}, from one IP address (the new connection is closed). */
    HANDSHAKES_PER_ADDRESS("traverse.hub.max.handshakes.per.address"),
    /** Connections on the HTTP port with their request unfinished (the longest-waiting is closed). */
    HTTP_REQUESTS("traverse.hub.max.http.requests");

    /** Every overload reason starts with this. */
    public static final String PREFIX = "OVERLOAD: ";
    /** The key of the burst that goes with {@link #LINK_RATE}. */
    public static final String LINK_BURST_KEY = "traverse.hub.link.burst";
    /** The key of the burst that goes with {@link #LOOKUPS_PER_NODE}. */
    public static final String LOOKUP_BURST_KEY = "traverse.hub.lookup.burst.per.node";

    private final String key;

    AdmissionLimit(String key) {
        this.key = key;
    }

    /** The settings key (in a hub's {@code --config} file) that sets this limit. */
    public String key() {
        return key;
    }

    /** The limit's name as a metric tag: {@code relayed-per-node}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The refusal's reason: {@code OVERLOAD: <what> at hub <hub>, the most <key> allows}. */
    public String reason(String what, String hub) {
        return PREFIX + what + " at hub " + hub + ", the most " + key + " allows";
    }
}
