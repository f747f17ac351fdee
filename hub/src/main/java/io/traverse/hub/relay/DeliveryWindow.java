package io.traverse.hub.relay;

/**
 * One direction of a relayed connection whose receiving end is a node of this hub. Once that node
 * grants more than {@link #SIZE} beyond what this hub queued for it, its credit is passed on to the
 * sender no further than {@link #SIZE} beyond what this hub has written to the node's link, so this
 * hub queues about that much of the connection for a node that reads slowly, and it need not stop
 * reading the sender's link, which carries the sender's other connections, to bound its memory:
 * backpressure per connection, hop by hop, with the credit frames the nodes already exchange
 * (docs/protocol.md, "Flow control").
 *
 * <p>A routed node never grants more than its own window (as large as this one) beyond what it
 * read, which is never beyond what this hub queued for it plus a window: its credit is passed on
 * whole and its writes are not followed (a write future per frame is not free). The first time a
 * node grants more than a window beyond what was queued for the connection, the window starts to
 * follow the writes ({@link #sending} says to report them), and one barrier write covers what was
 * queued before ({@link #barrier}), so a sender that waits for credit always gets it once the
 * node's link drains. (The barrier may pass DATA another thread has not queued yet; then up to a
 * window more is passed on, once.) A node that grants a window ahead of what was queued again and again without
 * reading is not held back here but by its link (the hub stops reading the links that send to a
 * node whose link has too much queued, and closes a link that takes nothing).
 *
 * <p>Credit frames from the node and the writes to its link come on different threads; a window
 * is small and touched once per frame, so it locks itself.
 */
final class DeliveryWindow {
    /** What a connection may have on its way to a node beyond what this hub wrote to it: a node's largest window. */
    static final int SIZE = 1024 * 1024;

    /** {@link #sending}: the frame goes beyond the credit passed on (a sender that ignores it). */
    static final int NOT_COVERED = 0;
    /** {@link #sending}: within the credit passed on; its write need not be reported. */
    static final int COVERED = 1;
    /** {@link #sending}: within the credit passed on; report its write with {@link #written}. */
    static final int COVERED_REPORT_WRITE = 2;

    /** The node's latest credit limit. */
    private long granted;
    /** Stream offset up to which this hub has written the connection's bytes to the node's link, as far as followed writes and the barrier tell. */
    private long written;
    /** Stream offset up to which this hub has queued the connection's bytes for the node's link. */
    private long queued;
    /** The credit limit passed on to the sender. */
    private long passed;
    /** The node granted more than a window beyond what was queued: writes are followed from now on. */
    private boolean following;
    /** A barrier write must cover what was queued before following began. */
    private boolean barrierDue;
    private boolean ended;

    /** The node granted up to {@code limit}: the limit to pass on instead (never below one passed before). */
    synchronized long granted(long limit) {
        granted = Math.max(granted, limit);
        if (!following && granted > queued + SIZE) {
            following = true;
            barrierDue = queued > written;
        }
        passed = Math.max(passed, following ? Math.min(granted, written + SIZE) : granted);
        return passed;
    }

    /**
     * The stream offset a barrier write on the node's link should report to {@link #written} once it
     * is written, or -1 if none is needed: one is, once, when the window starts to follow the writes
     * and bytes queued before were not followed.
     */
    synchronized long barrier() {
        if (ended || !barrierDue) {
            return -1;
        }
        barrierDue = false;
        return queued;
    }

    /** A DATA frame of {@code length} bytes at {@code offset} is about to be queued for the node: see the constants. */
    synchronized int sending(long offset, int length) {
        long end = offset + length;
        if (end > passed) {
            return NOT_COVERED;
        }
        queued = Math.max(queued, end);
        return following ? COVERED_REPORT_WRITE : COVERED;
    }

    /**
     * The bytes up to {@code end} were written to the node's link (a followed DATA frame's write or
     * the barrier's): a higher limit to pass on in a CREDIT, or -1 while that would move it by less than
     * a quarter window (or the node granted no more, or the connection ended).
     */
    synchronized long written(long end) {
        written = Math.max(written, end);
        long allowed = Math.min(granted, written + SIZE);
        if (ended || allowed <= passed || (allowed - passed < SIZE / 4 && allowed < granted)) {
            return -1;
        }
        passed = allowed;
        return passed;
    }

    /** The connection ended: no more CREDITs from this window. */
    synchronized void end() {
        ended = true;
    }
}
