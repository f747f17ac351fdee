package io.traverse.routed;

/**
 * What a node knows of the path to one peer node: the PING in flight, when it was last sent, and
 * the round trip that PONGs measured, smoothed as TCP smooths its own (RFC 6298: {@code srtt},
 * {@code rttvar}, a timeout of {@code srtt + 4 rttvar}).
 *
 * <p>Why it is measured: PINGs and PONGs queue behind data on a busy path, so under load a PONG
 * may take seconds while the peer is alive and working. A fixed silence limit reads that as death
 * and resets healthy connections (thousands of streams at a round trip of seconds). The
 * silence limit is therefore a number of timeouts, each the larger of the probe interval and the
 * measured timeout: a path that grows slow stretches the limit with it, an idle path that stops
 * answering is still given up within a few probe intervals, and a hub on the way that cannot
 * forward answers a PING with a RESET at once.
 *
 * <p>Used by the prober and by the frame receiver at once: every method is synchronized (one peer's
 * state, touched a few times per probe interval and once per PONG).
 */
final class PeerLiveness {
    /** RFC 6298's clock granularity floor for {@code 4 rttvar}: a steady path gets some slack. */
    private static final long MIN_VARIANCE_NANOS = 10_000_000L;

    private RoutedConnection pingedOn;
    private long pingSentNanos;
    /** The PING in flight went on a connection that had one in flight already: its PONG measures nothing (Karn). */
    private boolean ambiguous;

    private long lastPingNanos;
    private long srttNanos = -1;
    private long rttvarNanos;

    PeerLiveness(long nowNanos) {
        this.lastPingNanos = nowNanos;
    }

    /** A PING goes out on {@code on} now. */
    synchronized void pinged(RoutedConnection on, long nowNanos) {
        ambiguous = pingedOn == on;
        pingedOn = on;
        pingSentNanos = nowNanos;
        lastPingNanos = nowNanos;
    }

    /** A PONG came back on {@code on}: a round-trip sample if it answers the PING in flight. */
    synchronized void ponged(RoutedConnection on, long nowNanos) {
        if (on != pingedOn) {
            return; // the answer to an earlier PING, given up on: it would measure from the wrong send
        }
        if (!ambiguous) {
            sample(nowNanos - pingSentNanos);
        }
        pingedOn = null;
        ambiguous = false;
    }

    private void sample(long rttNanos) {
        if (srttNanos < 0) {
            srttNanos = rttNanos;
            rttvarNanos = rttNanos / 2;
        } else {
            rttvarNanos = (3 * rttvarNanos + Math.abs(srttNanos - rttNanos)) / 4;
            srttNanos = (7 * srttNanos + rttNanos) / 8;
        }
    }

    /** The retransmission timeout of RFC 6298, but never below the probe interval. */
    synchronized long timeoutNanos(long probeNanos) {
        if (srttNanos < 0) {
            return probeNanos;
        }
        return Math.max(probeNanos, srttNanos + Math.max(MIN_VARIANCE_NANOS, 4 * rttvarNanos));
    }

    /**
     * Whether to PING now: the peer has been silent for a probe interval, or the last round trip
     * was measured long ago (a busy peer is measured too, so that the limit follows its load);
     * never while a PING is in flight for less than a timeout.
     */
    synchronized boolean shouldPing(long silentNanos, long probeNanos, long nowNanos, int busyEvery) {
        long sincePing = nowNanos - lastPingNanos;
        if (pingedOn != null && sincePing < timeoutNanos(probeNanos)) {
            return false;
        }
        if (silentNanos > probeNanos) {
            return sincePing > probeNanos;
        }
        return sincePing > busyEvery * probeNanos;
    }

    /** The peer is taken for gone after this much silence: {@code probes} timeouts. */
    synchronized long deadAfterNanos(long probeNanos, int probes) {
        return probes * timeoutNanos(probeNanos);
    }

    /** The smoothed round trip so far, or -1 before the first sample. */
    synchronized long smoothedRoundTripNanos() {
        return srttNanos;
    }
}
