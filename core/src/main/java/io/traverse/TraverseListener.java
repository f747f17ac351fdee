package io.traverse;

import io.traverse.identity.NodeId;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Events of one node, for monitoring ({@link Traverse#addListener}). Every method does nothing
 * unless overridden.
 *
 * <p>A node delivers its events in the order they happened, one at a time, on its own daemon
 * thread ({@code traverse-<id>-events}) — never on a network I/O thread, never on the
 * application thread that connects or accepts — so a listener may block briefly without
 * slowing connections, but a slow listener delays the events after it. A listener that throws is
 * logged (SLF4J, WARN) and the others still get the event. Events are queued up to a bound
 * (10,000); beyond it new events are dropped and counted in the log, never buffered without
 * limit.
 */
public interface TraverseListener {
    /** A connection was handed to the application: connected by this node, or accepted by one of its server sockets. */
    default void connected(ConnectionInfo connection) {}

    /** A connect to {@code target} failed with {@code failure} (what the application got thrown). */
    default void connectFailed(SocketAddress target, IOException failure) {}

    /**
     * A connection of {@code module} to node {@code peer} was reset because the path failed — nothing
     * heard from the peer for several keepalive intervals, or a hub on the way could not forward
     * its frames — rather than because the peer ended it.
     */
    default void peerUnreachable(String module, NodeId peer, String reason) {}

    /** The node linked to a hub (first link, or again after a loss). */
    default void hubLinkUp(HubLinkStatus status) {}

    /** The node's link to hub {@code hubId} at {@code hubAddress} broke; the node fails over to another hub. */
    default void hubLinkLost(NodeId hubId, InetSocketAddress hubAddress, String reason) {}

    /**
     * A background probe found that {@code newModule}, earlier in the configured module order,
     * now reaches the targets cached under {@code cacheKey} (a hub, or a node without one), which
     * {@code previousModule} had won; new connections there start with {@code newModule}. Existing
     * connections stay where they are.
     */
    default void pathUpgraded(String cacheKey, String previousModule, String newModule) {}
}
