package io.traverse.spi;

import io.netty.buffer.ByteBufAllocator;
import io.traverse.identity.NodeId;
import io.traverse.wire.Relay;
import java.io.InterruptedIOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;

/**
 * What a node offers the routed module: RELAY frames over its hub link (paper §3.3.3, virtual
 * connections relayed by hubs). One receiver gets every RELAY frame the hub sends this node, one
 * at a time and in order, and learns when the link is lost (every relayed connection over it is
 * gone then: the next link may go to another hub).
 *
 * <p>Frames arrive on the link's event loop, or — over a data link — on whichever thread reads
 * the link: a thread that waits for frames lends itself to reading ({@link #readWhileWaiting}),
 * so that a frame reaches the thread waiting for it with no hand-over between threads.
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

    /**
     * Lends the calling thread, which waits until {@code ready} holds, to reading the link
     * (leader/follower): if no other thread reads the link, this one reads and hands frames to the
     * receiver on this thread; otherwise it waits while another does. Returns once {@code ready}
     * holds, the deadline passes or {@link #wakeWaiters()} is called: the caller checks again.
     * {@code ready} is called with no lock of the link held. Returns false at once if frames
     * arrive on the event loop instead (the caller then waits its own way).
     *
     * @param deadlineNanos a {@link System#nanoTime()} deadline, or 0 for none
     * @throws InterruptedIOException if the thread is interrupted while it waits
     */
    default boolean readWhileWaiting(BooleanSupplier ready, long deadlineNanos) throws InterruptedIOException {
        return false;
    }

    /** Makes threads in {@link #readWhileWaiting} check their condition again (it changed without a frame). Any thread. */
    default void wakeWaiters() {
    }

    /** Called on {@link #loop()} or on a thread reading the link, one frame at a time. */
    interface Receiver {
        /** A frame for this node; the receiver takes over its reference. */
        void frame(Relay frame);

        /** The hub link is gone: frames sent on it may be lost, answers will not come. */
        void linkLost(String reason);
    }
}
