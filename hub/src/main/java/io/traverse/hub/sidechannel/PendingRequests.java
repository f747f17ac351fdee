package io.traverse.hub.sidechannel;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The side-channel requests of one node that went out through this hub and have not been
 * answered yet, by message id, each with a deadline after which it no longer counts. Bounded.
 */
final class PendingRequests {
    private final int limit;
    private final Map<Long, Long> deadlines = new LinkedHashMap<>();

    PendingRequests(int limit) {
        this.limit = limit;
    }

    /** False if the node already has {@code limit} requests pending. */
    boolean tryAdd(long messageId, long deadlineNanos) {
        if (deadlines.size() >= limit && !deadlines.containsKey(messageId)) {
            return false;
        }
        deadlines.remove(messageId);
        deadlines.put(messageId, deadlineNanos);
        return true;
    }

    void complete(long messageId) {
        deadlines.remove(messageId);
    }

    /** Drops requests past their deadline (insertion order is deadline order). */
    void expire(long nowNanos) {
        Iterator<Long> it = deadlines.values().iterator();
        while (it.hasNext() && it.next() - nowNanos < 0) {
            it.remove();
        }
    }

    int size() {
        return deadlines.size();
    }
}
