package io.traverse.hub.link;

/** Who is at the other end of an authenticated link. */
public enum LinkKind {
    NODE,
    HUB
}
