package io.traverse.spi;

import io.netty.buffer.ByteBufAllocator;
import io.traverse.identity.NodeId;
import io.traverse.wire.Relay;
import java.util.concurrent.ScheduledExecutorService;

/**
 * What a node offers the routed module: RELAY frames over its hub link (paper §3.3.3, virtual
 * connections relayed by hubs). One receiver gets every RELAY frame the hub sends this node, one
 * at a time and in order, and learns when the link is lost (every relayed connection over it is
 * gone then: the next link may go to another hub).
 *
 * <p>Frames arrive on the link's event loop, or — over a data link — on the data link's own
 * reader thread. Either way the receiver must not block: it files a frame and wakes whoever waits
 * for it, so that the link is always read, whatever the application does.
 */
public interface RelayLink {
    /** This node's id: the opener or acceptor of its relayed connections. */
    NodeId localId();

    /** Sets the one receiver of RELAY frames and link losses. */
    void receiveWith(Receiver receiver);

    /**
     * Sends a frame on the hub link now; takes over the frame's reference. Any thread; frames
     * sent from one thread leave in order.
     *
     * @return false if there is no hub link (the frame is released)
     */
    boolean send(Relay frame);

    /** True while the hub link is up. */
    boolean isLinked();

    /** The link's event loop: where frames arrive; for timers that must not race them. */
    ScheduledExecutorService loop();

    /** Where payload buffers come from (pooled, direct). */
    ByteBufAllocator allocator();

    /** Called on {@link #loop()} or on a thread reading the link, one frame at a time. */
    interface Receiver {
        /** A frame for this node; the receiver takes over its reference. */
        void frame(Relay frame);

        /** The hub link is gone: frames sent on it may be lost, answers will not come. */
        void linkLost(String reason);
    }
}
