package io.traverse.logging;

import java.time.Duration;
import java.util.Arrays;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Warnings that a peer can cause at will (a refused key proof, a relayed connection offered in
 * clear): at most {@code perWindow} lines at WARN per window, so that a peer repeating its
 * mistake thousands of times a second cannot flood the log or the disk under it. Lines over the
 * budget go to DEBUG, and their count goes out with the next WARN. One instance per node and
 * part (its listener, its relayed connections, a hub's long-poll endpoint); thread-safe.
 */
public final class PeerWarnings {
    /** WARN lines per window by default. */
    public static final int PER_WINDOW = 5;
    /** The default window. */
    public static final Duration WINDOW = Duration.ofSeconds(10);

    private final Logger log;
    private final int perWindow;
    private final long windowNanos;
    private final LongSupplier nanoClock;
    // Guarded by this.
    private long windowStart;
    private int logged;
    private long unlogged;

    public PeerWarnings(Logger log) {
        this(log, PER_WINDOW, WINDOW, System::nanoTime);
    }

    PeerWarnings(Logger log, int perWindow, Duration window, LongSupplier nanoClock) {
        if (perWindow < 1) {
            throw new IllegalArgumentException("at least one line per window, not " + perWindow);
        }
        this.log = log;
        this.perWindow = perWindow;
        this.windowNanos = window.toNanos();
        this.nanoClock = nanoClock;
        this.windowStart = nanoClock.getAsLong() - windowNanos; // the first line opens a window
    }

    /**
     * Logs at WARN unless this window's lines are spent (then at DEBUG). The arguments are SLF4J's;
     * a throwable among them is logged as an argument, not with its stack trace.
     *
     * @return whether the line went out at WARN
     */
    public boolean warn(String format, Object... arguments) {
        long before;
        synchronized (this) {
            long now = nanoClock.getAsLong();
            if (now - windowStart >= windowNanos) {
                windowStart = now;
                logged = 0;
            }
            if (logged >= perWindow) {
                unlogged++;
                log.debug(format, arguments);
                return false;
            }
            logged++;
            before = unlogged;
            unlogged = 0;
        }
        if (before == 0) {
            log.warn(format, arguments);
        } else {
            Object[] withCount = Arrays.copyOf(arguments, arguments.length + 1);
            withCount[arguments.length] = before;
            log.warn(format + " ({} more like this went to DEBUG before it)", withCount);
        }
        return true;
    }

    /** Lines sent to DEBUG since the last WARN. */
    synchronized long unlogged() {
        return unlogged;
    }
}
