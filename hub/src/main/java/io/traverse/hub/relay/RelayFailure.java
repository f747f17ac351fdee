package io.traverse.hub.relay;

/** Why a hub answered a relay frame with a RESET instead of passing it on. */
public enum RelayFailure {
    /** The destination's hub is known but not reachable in the hub graph. */
    NO_ROUTE,
    /** No reachable hub lists the destination node. */
    UNKNOWN_NODE,
    /** The frame had no hops left and was not at its destination's hub. */
    HOP_LIMIT,
    /** An OPEN beyond one of the hub's admission limits (the RESET's reason starts with OVERLOAD). */
    OVERLOAD
}
