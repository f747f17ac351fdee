package io.traverse.spi;

import io.traverse.identity.NodeId;

/**
 * What a module tells the node's listeners ({@code io.traverse.TraverseListener}). Calls return at
 * once from any thread, event loops included: the node queues the event and delivers it on its own
 * event thread.
 */
public interface ModuleEvents {
    /**
     * A connection of {@code module} to {@code peer} was reset because the path to the peer failed
     * (nothing heard from it for several keepalive intervals, or a hub on the way could not
     * forward), not because the peer ended it.
     */
    void peerUnreachable(String module, NodeId peer, String reason);
}
