package io.traverse.bench.longpoll;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The five RobustTrav parameters (papers/robusttrav-longpolling.txt, Table 1) as the latency sweep
 * varies them, with the paper's test values (Table 2) and the {@code traverse.longpoll.*} settings
 * one value becomes. Where our validation couples two keys (the client timeout must exceed the
 * server timeout by 1 s) the other key is moved just enough, and {@link #settings} says so.
 */
public enum LongPollParameter {
    SERVER_TIMEOUT(
            "server-timeout",
            "ms",
            List.of(500L, 1000L, 5000L, 10_000L, 30_000L, 60_000L, 75_000L, 90_000L, 105_000L, 120_000L)),
    CLIENT_TIMEOUT(
            "client-timeout",
            "ms",
            List.of(500L, 1000L, 5000L, 10_000L, 30_000L, 60_000L, 75_000L, 90_000L, 105_000L, 120_000L)),
    REGENERATE("regenerate", "ms", List.of(0L, 50L, 100L, 150L, 200L, 250L, 300L, 350L, 400L, 450L)),
    BATCH_SIZE("batch-size", "events", List.of(1L, 5L, 10L, 25L, 50L, 100L, 200L, 300L, 500L, 750L)),
    BATCH_TIMESPAN(
            "batch-timespan", "ms", List.of(50L, 500L, 1000L, 2000L, 3000L, 4000L, 5000L, 7500L, 9000L, 10_000L));

    /**
     * Bytes one event takes in a poll answer: a RELAY DATA frame of 16 payload bytes (length 4,
     * type 1, connection id 8, two 26-character node ids with their length bytes 54, direction,
     * hops and kind 3, payload length 4, payload 16). The paper's batch size counts events; ours
     * counts bytes of the session's stream.
     */
    public static final int WIRE_BYTES_PER_EVENT = 90;
    /** Our defaults (docs/operations.md), which the parameters not swept keep. */
    static final long DEFAULT_SERVER_TIMEOUT_MS = 25_000;

    static final long DEFAULT_CLIENT_TIMEOUT_MS = 35_000;

    private final String label;
    private final String unit;
    private final List<Long> paperValues;

    LongPollParameter(String label, String unit, List<Long> paperValues) {
        this.label = label;
        this.unit = unit;
        this.paperValues = paperValues;
    }

    public String label() {
        return label;
    }

    public String unit() {
        return unit;
    }

    /** Table 2 of the paper. */
    public List<Long> paperValues() {
        return paperValues;
    }

    static LongPollParameter byLabel(String label) {
        for (LongPollParameter p : values()) {
            if (p.label.equals(label)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown parameter " + label
                + " (server-timeout, client-timeout, regenerate, batch-size," + " batch-timespan)");
    }

    /**
     * The node settings for this parameter at {@code value}, the others at our defaults.
     * A client timeout below 1 s cannot be set (it must exceed the server timeout, at least 0, by
     * 1 s): its point is run at 1 s and labelled so by the caller through {@link #effective}.
     */
    Map<String, String> settings(long value) {
        Map<String, String> s = new LinkedHashMap<>();
        switch (this) {
            case SERVER_TIMEOUT -> {
                s.put("traverse.longpoll.server.timeout", value + "ms");
                s.put("traverse.longpoll.client.timeout", Math.max(DEFAULT_CLIENT_TIMEOUT_MS, value + 1000) + "ms");
            }
            case CLIENT_TIMEOUT -> {
                long client = effective(value);
                s.put("traverse.longpoll.client.timeout", client + "ms");
                s.put("traverse.longpoll.server.timeout", Math.min(DEFAULT_SERVER_TIMEOUT_MS, client - 1000) + "ms");
            }
            case REGENERATE -> s.put("traverse.longpoll.client.regenerate", value + "ms");
            case BATCH_SIZE -> s.put("traverse.longpoll.batch.size", Long.toString(value * WIRE_BYTES_PER_EVENT));
            case BATCH_TIMESPAN -> s.put("traverse.longpoll.batch.timespan", value + "ms");
            default -> throw new IllegalStateException();
        }
        return s;
    }

    /** The value actually run: a client timeout is at least 1 s (see {@link #settings}). */
    long effective(long value) {
        return this == CLIENT_TIMEOUT ? Math.max(1000, value) : value;
    }
}
