package io.traverse.hub.relay;

/**
 * One direction of a relayed connection whose receiving end is a node of this hub. The credit that
 * node grants is passed on to the sender no further than {@link #SIZE} beyond what this hub has
 * written to the node's link, so this hub queues at most that much of the connection for a node
 * that reads slowly, and it need not stop reading the sender's link, which carries the sender's
 * other connections, to bound its memory: backpressure per connection, hop by hop, with the
 * credit frames the nodes already exchange (docs/protocol.md, "Flow control").
 *
 * <p>Credit frames from the node and the writes to its link come on different threads; a window
 * is small and touched once per frame, so it locks itself.
 */
final class DeliveryWindow {
    /** What a connection may have on its way to a node beyond what this hub wrote to it: a node's largest window. */
    static final int SIZE = 1024 * 1024;

    /** The node's latest credit limit. */
    private long granted;
    /** Stream offset up to which this hub wrote the connection's bytes to the node's link. */
    private long written;
    /** The credit limit passed on to the sender. */
    private long passed;
    private boolean ended;

    /** The node granted up to {@code limit}: the limit to pass on instead (never below one passed before). */
    synchronized long granted(long limit) {
        granted = Math.max(granted, limit);
        passed = Math.max(passed, Math.min(granted, written + SIZE));
        return passed;
    }

    /** Whether DATA of {@code length} bytes at {@code offset} keeps to the credit passed on (a sender may ignore it). */
    synchronized boolean covers(long offset, int length) {
        return offset + length <= passed;
    }

    /**
     * The bytes up to {@code end} were written to the node's link: a higher limit to pass on in a
     * CREDIT, or -1 while that would move it by less than a quarter window (or the node granted no
     * more, or the connection ended).
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
