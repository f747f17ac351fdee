package io.traverse.hub.relay;

import io.traverse.hub.link.Link;

/**
 * One direction of a relayed connection with an end at this hub, on the link its DATA leaves this
 * hub on: the receiving node's link, or the hub link toward a receiver elsewhere (for DATA a node
 * of this hub sends). Once the receiver grants more than {@link #SIZE} beyond what this hub queued
 * on that link — or, while the link is congested (over its high water mark), more than the
 * connection's share of it ({@link #sizeFor}) — the credit is passed on to the sender no further
 * than that window beyond what this hub has written to the link. So this hub queues about a window
 * of each connection for a node that reads slowly or a hub link that is narrow, and it need not
 * stop reading the senders' links, which carry their other connections, to bound its memory:
 * backpressure per connection, hop by hop, with the credit frames the nodes already exchange
 * (docs/protocol.md, "Flow control").
 *
 * <p>While a link is congested, the more connections share it the smaller each window: together
 * they may queue about {@link #NODE_QUEUE}, and each at least {@link #FLOOR}. A routed node never
 * grants more than its own window (at most {@link #SIZE}, less when its receive budget is shared)
 * beyond what it read, which is never beyond what this hub queued plus that window: while the link
 * keeps up its credit is passed on whole and the writes are not followed (a write future per frame
 * is not free). The first time a receiver grants more than the window allows beyond what was
 * queued for the connection, the window starts to follow the writes for good ({@link #sending}
 * says to report them), and one barrier write covers what was queued before ({@link #barrier}), so
 * a sender that waits for credit always gets it once the link drains. (The barrier may pass DATA
 * another thread has not queued yet; then up to a window more is passed on, once.) A receiver that
 * grants less than a window ahead of what was queued again and again without reading is not held
 * back here but by the link (beyond {@link #queueBound} the hub stops reading the links that send
 * to it, and it closes a link that takes nothing).
 *
 * <p>Credit frames and the writes to the link come on different threads; a window is small and
 * touched once per frame, so it locks itself.
 */
final class DeliveryWindow {
    /** The most a connection may have on its way to a node beyond what this hub wrote to it: a node's largest window. */
    static final int SIZE = 1024 * 1024;
    /** The least each connection gets while {@link #MAX_LINK_QUEUE} allows it (up to about 3,000 connections of one node). */
    static final int FLOOR = 16 * 1024;
    /** The least at any count (a node may be let hold more connections than the default 5,000). */
    static final int MIN = 4 * 1024;
    /** What the windows of one node's connections add up to while each gets more than {@link #FLOOR}. */
    static final long NODE_QUEUE = 8L * 1024 * 1024;
    /**
     * The most one link queues for relayed connections at any count: past it the windows'
     * transitions (a receiver that granted a larger window before the link got congested, or
     * before its node held more connections) are absorbed by holding the senders' links, as a
     * last resort. A hub link, shared by every connection that crosses it, may always queue this
     * much.
     */
    static final long MAX_LINK_QUEUE = 48L * 1024 * 1024;

    /** {@link #sending}: the frame goes beyond the credit passed on (a sender that ignores it). */
    static final int NOT_COVERED = 0;
    /** {@link #sending}: within the credit passed on; its write need not be reported. */
    static final int COVERED = 1;
    /** {@link #sending}: within the credit passed on; report its write with {@link #written}. */
    static final int COVERED_REPORT_WRITE = 2;

    /** The receiver's latest credit limit. */
    private long granted;
    /** Stream offset up to which this hub has written the connection's bytes to the link, as far as followed writes and the barrier tell. */
    private long written;
    /** Stream offset up to which this hub has queued the connection's bytes on the link. */
    private long queued;
    /** The credit limit passed on to the sender. */
    private long passed;
    /** The link the connection's DATA last left on (null before the first). */
    private Link link;
    /** The window now: {@link #sizeFor} the connections sharing the link when the receiver last granted. */
    private int size = SIZE;
    /** The receiver granted more than the window allowed beyond what was queued: writes are followed from now on. */
    private boolean following;
    /** A barrier write must cover what was queued before following began. */
    private boolean barrierDue;

    private boolean ended;

    /** The link the connection's DATA last left on, or {@code otherwise} before the first. */
    synchronized Link link(Link otherwise) {
        return link == null ? otherwise : link;
    }

    /** Each connection's window on a link that {@code connections} relayed connections share. */
    static int sizeFor(int connections) {
        long n = Math.max(1, connections);
        long size = Math.max(FLOOR, Math.min(SIZE, NODE_QUEUE / n));
        return (int) Math.max(MIN, Math.min(size, (MAX_LINK_QUEUE - SIZE) / n));
    }

    /**
     * What a link may have queued above its low water mark before even DATA within its
     * connections' windows holds back the links it comes from: what all windows allow, plus one
     * window for the frames in flight between threads; at most {@link #MAX_LINK_QUEUE}.
     */
    static long queueBound(int connections) {
        return Math.min(MAX_LINK_QUEUE, (long) Math.max(1, connections) * sizeFor(connections) + SIZE);
    }

    /**
     * The receiver granted up to {@code limit}: the limit to pass on instead (never below one
     * passed before). {@code size} is the connection's window now ({@link #sizeFor}); {@code
     * congested} says the link is over its high water mark.
     */
    synchronized long granted(long limit, int size, boolean congested) {
        granted = Math.max(granted, limit);
        this.size = size;
        if (!following && (granted > queued + SIZE || (congested && granted > queued + size))) {
            following = true;
            barrierDue = queued > written;
        }
        passed = Math.max(passed, following ? Math.min(granted, written + size) : granted);
        return passed;
    }

    /**
     * The stream offset a barrier write on the link should report to {@link #written} once it
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

    /**
     * A DATA frame of {@code length} bytes at {@code offset} is about to be queued on {@code link}:
     * see the constants.
     */
    synchronized int sending(long offset, int length, Link link) {
        this.link = link;
        long end = offset + length;
        if (end > passed) {
            return NOT_COVERED;
        }
        queued = Math.max(queued, end);
        return following ? COVERED_REPORT_WRITE : COVERED;
    }

    /**
     * The bytes up to {@code end} were written to the link (a followed DATA frame's write or the
     * barrier's): a higher limit to pass on in a CREDIT, or -1 while that would move it by less
     * than a quarter window (or the receiver granted no more, or the connection ended).
     */
    synchronized long written(long end) {
        written = Math.max(written, end);
        long allowed = Math.min(granted, written + size);
        if (ended || allowed <= passed || (allowed - passed < size / 4 && allowed < granted)) {
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
