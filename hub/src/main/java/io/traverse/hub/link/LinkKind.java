package io.traverse.hub.link;

/** Who is at the other end of an authenticated link. */
public enum LinkKind {
    NODE,
    HUB,
    /** A node's data link: RELAY frames only, bound to the node's link (docs/protocol.md, "Data links"). */
    NODE_DATA
}
