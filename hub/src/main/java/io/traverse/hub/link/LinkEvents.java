package io.traverse.hub.link;

import io.traverse.identity.NodeId;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Reject;
import io.traverse.wire.Relay;
import io.traverse.wire.SideMessage;

/**
 * What the link layer reports to the hub. Every method but {@link #isStaleGossip}, {@link #gossipFrameArrived}
 * and the two {@code AtOnce} ones is called on the hub's state loop, one
 * at a time, so the hub needs no locks; messages of a link arrive in order, between its
 * {@link #established} and its {@link #closed}.
 */
public interface LinkEvents {
    /**
     * An authenticated peer wants in (acceptor side: after AUTH, before WELCOME; dialler side:
     * after WELCOME). Returns null to admit it or a REJECT to refuse it. An admitted link is
     * reported {@link #established} right after, and {@link #closed} when its channel closes,
     * whatever the reason.
     */
    Reject admit(Link link);

    /** An admitted link may be used now (its WELCOME, if we accepted it, is already queued before anything sent here). */
    void established(Link link);

    /** A message arrived on an admitted link. Messages of links that were refused are never reported. */
    void received(Link link, LinkMessage message);

    /**
     * Whether a hub description with this hub id and state number is no news (this hub holds it
     * or a newer one), so that the link may drop it undecoded. Called on I/O threads: must be
     * thread-safe and cheap.
     */
    default boolean isStaleGossip(NodeId hubId, long stateNumber) {
        return false;
    }

    /**
     * A GOSSIP, GOSSIP_DIGEST or GOSSIP_SUMMARY frame of this many bytes (length prefix included) arrived on a hub
     * link, news or not: counted for the metrics. Called on I/O threads: must be thread-safe and cheap.
     */
    default void gossipFrameArrived(int frameBytes) {}

    /**
     * Relays a RELAY frame at once on the link's I/O thread if its next link is known without the
     * state loop (then it takes over the frame and returns true); false hands it to
     * {@link #received} as usual. Must be thread-safe.
     */
    default boolean relayedAtOnce(Link link, Relay frame) {
        return false;
    }

    /**
     * Sends a side message at once on the link's I/O thread if its next link is known without the
     * state loop (returns true); false hands it to {@link #received} as usual. Called only when no
     * earlier message of the link waits at the state loop. Must be thread-safe.
     */
    default boolean sideMessageSentAtOnce(Link link, SideMessage message) {
        return false;
    }

    /** An admitted link is gone. */
    void closed(Link link);
}
