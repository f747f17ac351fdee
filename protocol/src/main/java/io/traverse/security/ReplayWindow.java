package io.traverse.security;

/**
 * Which counters of one sender have been seen, as IPsec's anti-replay window (RFC 4303, 3.4.3):
 * the highest seen and a bitmap of the {@link #SIZE} below it. A counter is admitted once; one
 * older than the window is refused, since it can no longer be told apart from a replay. Offers made
 * at once may arrive out of order, which the window's width allows for.
 */
final class ReplayWindow {
    /** Counters below the highest seen that are still told apart. */
    static final int SIZE = 1024;

    private final long[] seen = new long[SIZE / 64];
    private long highest;

    /** True, once, for a counter (at least 1) that is new and within the window; false otherwise. */
    synchronized boolean admit(long counter) {
        if (counter <= 0) {
            return false;
        }
        if (counter > highest) {
            long shift = counter - highest;
            if (shift >= SIZE) {
                java.util.Arrays.fill(seen, 0);
            } else {
                for (long c = highest + 1; c <= counter; c++) {
                    clear(c);
                }
            }
            highest = counter;
            set(counter);
            return true;
        }
        if (highest - counter >= SIZE || isSet(counter)) {
            return false;
        }
        set(counter);
        return true;
    }

    private int bit(long counter) {
        return (int) (counter % SIZE);
    }

    private boolean isSet(long counter) {
        int b = bit(counter);
        return (seen[b >>> 6] & (1L << (b & 63))) != 0;
    }

    private void set(long counter) {
        int b = bit(counter);
        seen[b >>> 6] |= 1L << (b & 63);
    }

    private void clear(long counter) {
        int b = bit(counter);
        seen[b >>> 6] &= ~(1L << (b & 63));
    }
}
