package io.traverse.routed;

import java.util.concurrent.atomic.AtomicLong;

/**
 * How many bytes a node lets the senders of all its relayed connections have on their way to it,
 * beyond what its application has read: the credit it granted and nobody consumed yet, which is all
 * a connection can make it buffer. A connection is granted its share of the budget (the budget
 * divided among the open connections, within {@link #FLOOR} and its window) while the budget has
 * room for it, and never less than {@link #FLOOR} beyond what was read, so every connection keeps
 * moving. The node then buffers at most the budget plus {@link #FLOOR} per connection, however many
 * connections its application stops reading.
 *
 * <p>Credit once granted is never taken back (a grant is a stream offset): a connection whose share
 * shrank is topped up again only once its application has read below the new share.
 */
final class ReceiveBudget {
    /** What a connection is granted beyond what was read even when the budget is spent. */
    static final int FLOOR = 64 * 1024;

    private final long limit;
    private final int window;
    /** Granted and not yet consumed, summed over the connections that joined. */
    private final AtomicLong outstanding = new AtomicLong();

    /**
     * @param limit the budget in bytes
     * @param window the most one connection is granted beyond what was read
     */
    ReceiveBudget(long limit, int window) {
        if (limit < 1 || window < 1) {
            throw new IllegalArgumentException("a receive budget and window must be positive: " + limit + ", " + window);
        }
        this.limit = limit;
        this.window = window;
    }

    /** A budget no load reaches: every connection gets its whole window. */
    static ReceiveBudget unlimited(int window) {
        return new ReceiveBudget(Long.MAX_VALUE, window);
    }

    /** One connection's share while {@code connections} are open: the budget divided among them, within the floor and the window. */
    int share(int connections) {
        long perConnection = limit / Math.max(1, connections);
        return (int) Math.min(window, Math.max(FLOOR, perConnection));
    }

    /**
     * The credit limit to grant a connection that has consumed {@code consumed} bytes and was granted
     * up to {@code granted}: its share beyond what it consumed while the budget has room for the
     * increase, else only the floor beyond it (never less than {@code granted}).
     */
    long limitFor(long consumed, long granted, int connections) {
        int share = share(connections);
        long wanted = consumed + share;
        if (wanted > granted && outstanding.get() + (wanted - granted) > limit) {
            wanted = consumed + Math.min(share, FLOOR);
        }
        return Math.max(granted, wanted);
    }

    /** The credit to grant a new connection: its share if the budget has room, else the floor. */
    long initialGrant(int connections) {
        return limitFor(0, 0, connections);
    }

    /** Counts bytes granted ({@code bytes > 0}) or consumed or given back ({@code bytes < 0}). */
    void add(long bytes) {
        outstanding.addAndGet(bytes);
    }

    /** Granted and not yet consumed, over the connections that joined. */
    long outstanding() {
        return outstanding.get();
    }

    long limit() {
        return limit;
    }
}
