package io.traverse.settings;

import java.time.Duration;

/**
 * How a node reaches its hub through an HTTP proxy, and the five long-polling parameters of
 * RobustTrav (papers/robusttrav-longpolling.txt, Table 1), validated once.
 *
 * @param tunnel        {@code auto} (CONNECT, and a long-poll session when the proxy refuses it),
 *                      {@code connect} (CONNECT only) or {@code longpoll} (always a long-poll session, also without a proxy)
 * @param serverTimeout how long the hub holds a poll that has nothing to return (asked per session, capped by the hub)
 * @param clientTimeout how long the node waits for any answer before it gives the request up and repeats it
 * @param regenerate    how long the node waits after an answer before it polls again
 * @param batchSize     the most bytes one answer or one upstream request carries
 * @param batchTimespan how long the hub lets bytes gather before it answers a poll (0: at once)
 */
public record LongPollSettings(
        String tunnel,
        Duration serverTimeout,
        Duration clientTimeout,
        Duration regenerate,
        int batchSize,
        Duration batchTimespan) {
    public static final int MAX_BATCH_SIZE = 1024 * 1024;

    public LongPollSettings {
        check(serverTimeout, Duration.ZERO, Duration.ofMinutes(2), "server timeout");
        check(clientTimeout, Duration.ofMillis(1), Duration.ofMinutes(3), "client timeout");
        check(regenerate, Duration.ZERO, Duration.ofMillis(500), "client regenerate time");
        check(batchTimespan, Duration.ZERO, Duration.ofSeconds(10), "batch timespan");
        if (batchSize < 1 || batchSize > MAX_BATCH_SIZE) {
            throw new IllegalArgumentException(
                    "batch size " + batchSize + " is not within 1-" + MAX_BATCH_SIZE + " bytes");
        }
        if (clientTimeout.compareTo(serverTimeout.plusSeconds(1)) < 0) {
            throw new IllegalArgumentException(
                    "the client timeout (" + clientTimeout.toMillis() + " ms) must exceed the server timeout ("
                            + serverTimeout.toMillis() + " ms) by at least 1 s, or every held poll would be given up");
        }
    }

    /** Whether a long-poll session is used even where CONNECT would work (or no proxy is set). */
    public boolean always() {
        return tunnel.equals("longpoll");
    }

    /** Whether a refused CONNECT falls back on a long-poll session. */
    public boolean fallBack() {
        return !tunnel.equals("connect");
    }

    private static void check(Duration d, Duration min, Duration max, String what) {
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException("the " + what + " " + d.toMillis() + " ms is not within "
                    + min.toMillis() + "-" + max.toMillis() + " ms");
        }
    }
}
