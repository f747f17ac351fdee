package io.traverse;

/**
 * What Traverse itself does to a connection's bytes on their way between the two nodes (see
 * docs/security.md). The application's own TLS, if it runs one, comes on top of either.
 */
public enum Protection {
    /**
     * The bytes travel as the application wrote them: a kernel socket (direct, reverse, splice),
     * or a relayed connection of a node with {@code traverse.encrypt=none}.
     */
    NONE,
    /**
     * Encrypted and authenticated end to end, under keys that only the two nodes hold
     * (AES-128-GCM, agreed through their identity keys): the hubs that relay the connection see
     * ciphertext. Relayed connections are sealed by default ({@code traverse.encrypt=relayed}).
     */
    SEALED,
    /**
     * A direct, reverse or spliced connection in TLS 1.3 between the two nodes, each proving the
     * key of its node id ({@code traverse.encrypt=all} on either node); the socket is an
     * {@link javax.net.ssl.SSLSocket}.
     */
    TLS
}
