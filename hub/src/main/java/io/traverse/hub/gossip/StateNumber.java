package io.traverse.hub.gossip;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The state number of this hub's description: {@code System.currentTimeMillis() * 1000} at
 * start, plus one per change, so a restarted hub (same name, same id) starts above anything it
 * gossiped before, unless it made more than 1,000 changes per second for its whole life.
 * Readable from any thread (a dialler puts it in its HELLO).
 */
public final class StateNumber {
    private final AtomicLong value;

    public StateNumber(long startMillis) {
        this.value = new AtomicLong(startMillis * 1000);
    }

    public long current() {
        return value.get();
    }

    /** The next state, for a changed description. */
    public long next() {
        return value.incrementAndGet();
    }

    /**
     * Someone gossips our id with a state at or above ours (an earlier life of this hub whose
     * description is still around, with a clock that was ahead): jump past it so ours wins.
     */
    public long raiseAbove(long seen) {
        return value.updateAndGet(v -> Math.max(v, seen) + 1);
    }
}
