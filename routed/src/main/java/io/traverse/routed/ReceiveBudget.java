package io.traverse.routed;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many bytes a node lets the senders of all its relayed connections have on their way to it,
 * beyond what its application has read: the credit it granted and nobody consumed yet, which is all
 * a connection can make it buffer. A connection is a member from the credit it first grants until
 * nothing more can arrive on it; it is granted its share (the budget divided among the members,
 * within {@link #FLOOR} and its window) while the budget has room for it — checked and counted in
 * one step, so concurrent readers cannot overshoot together — and never less than {@link #FLOOR}
 * beyond what was read, so every connection keeps moving. The node then buffers at most the budget
 * plus {@link #FLOOR} per connection, however many connections its application stops reading.
 *
 * <p>Credit once granted is never taken back (a grant is a stream offset): a connection whose share
 * shrank is topped up again only once its application has read below the new share.
 */
final class ReceiveBudget {
    /** What a connection is granted beyond what was read even when the budget is spent. */
    static final int FLOOR = 64 * 1024;

    private final long limit;
    private final int window;
    /** Granted and not yet consumed, and received and not yet consumed of former members. */
    private final AtomicLong outstanding = new AtomicLong();

    private final AtomicInteger members = new AtomicInteger();

    /**
     * @param limit the budget in bytes
     * @param window the most one connection is granted beyond what was read
     */
    ReceiveBudget(long limit, int window) {
        if (limit < 1 || window < 1) {
            throw new IllegalArgumentException(
                    "a receive budget and window must be positive: " + limit + ", " + window);
        }
        this.limit = limit;
        this.window = window;
    }

    /** A budget no load reaches: every connection gets its whole window. */
    static ReceiveBudget unlimited(int window) {
        return new ReceiveBudget(Long.MAX_VALUE, window);
    }

    /** One connection's share among {@code connections}: the budget divided among them, within the floor and the window. */
    int share(int connections) {
        long perConnection = limit / Math.max(1, connections);
        return (int) Math.min(window, Math.max(FLOOR, perConnection));
    }

    /** One connection's share among the members now. */
    int share() {
        return share(members.get());
    }

    /** A new member's first credit, counted: its share if the budget has room, else the floor; at most {@code cap}. */
    long join(long cap) {
        return reserve(0, 0, members.incrementAndGet(), cap);
    }

    /**
     * A member that consumed {@code consumed} bytes and was granted up to {@code granted}: the new
     * credit limit, its increase counted — its share beyond what it consumed if the budget has room
     * for the increase, else the floor beyond it (never less than {@code granted}).
     */
    long topUp(long consumed, long granted) {
        return reserve(consumed, granted, members.get(), Long.MAX_VALUE);
    }

    /** The limit a connection that is no member (nothing it receives is kept) may be granted; not counted. */
    long limitFor(long consumed, long granted) {
        return Math.max(granted, consumed + share());
    }

    /** A member leaves, giving back {@code bytes} of what it had counted. */
    void leave(long bytes) {
        members.decrementAndGet();
        outstanding.addAndGet(-bytes);
    }

    /** Bytes counted before were read or thrown away. */
    void release(long bytes) {
        outstanding.addAndGet(-bytes);
    }

    private long reserve(long consumed, long granted, int connections, long cap) {
        long share = Math.min(cap, share(connections));
        long wanted = consumed + share;
        if (wanted <= granted) {
            return granted;
        }
        long raise = wanted - granted;
        for (long now = outstanding.get(); now + raise <= limit; now = outstanding.get()) {
            if (outstanding.compareAndSet(now, now + raise)) {
                return wanted;
            }
        }
        long floor = Math.max(granted, consumed + Math.min(share, FLOOR));
        outstanding.addAndGet(floor - granted);
        return floor;
    }

    /** What is counted now. */
    long outstanding() {
        return outstanding.get();
    }

    int members() {
        return members.get();
    }

    long limit() {
        return limit;
    }
}
