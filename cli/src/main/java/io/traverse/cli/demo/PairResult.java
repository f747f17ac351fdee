package io.traverse.cli.demo;

import java.time.Duration;

/** What happened when one demo node connected to another, and what the topology said should happen. */
record PairResult(String from, String to, Expectation expected, boolean connected, String module, Duration firstSetup,
        Duration cachedSetup, Duration medianRtt, double megabytesPerSecond, long bytesVerified, String failure) {

    /** What the two firewalls should make of the pair. */
    enum Expectation {
        /** The target lets the source in. */
        DIRECT,
        /** The target keeps the source out, but may dial it back. */
        REVERSE,
        /** Neither lets the other in: the hubs relay the connection. */
        ROUTED,
        /** Neither lets the other in, and both say so at once. */
        REFUSED,
        /** Neither lets the other in, and one of them drops silently. */
        TIMEOUT
    }

    static PairResult failed(String from, String to, Expectation expected, String failure, boolean timedOut) {
        return new PairResult(from, to, expected, false, timedOut ? "timeout" : "refused", null, null, null, 0, 0, failure);
    }

    boolean asExpected() {
        return switch (expected) {
            case DIRECT -> connected && bytesVerified > 0 && module.equals("direct");
            case REVERSE -> connected && bytesVerified > 0 && module.equals("reverse");
            case ROUTED -> connected && bytesVerified > 0 && module.equals("routed");
            case REFUSED -> !connected && module.equals("refused");
            case TIMEOUT -> !connected && module.equals("timeout");
        };
    }
}
