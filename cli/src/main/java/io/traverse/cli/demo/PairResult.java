package io.traverse.cli.demo;

import java.time.Duration;

/** What happened when one demo node connected to another, and what the topology said should happen. */
record PairResult(String from, String to, Expectation expected, boolean connected, String module, Duration firstSetup,
        Duration cachedSetup, Duration medianRtt, double megabytesPerSecond, long bytesVerified, String failure) {

    /** What the target's firewall should do with the source. */
    enum Expectation {
        CONNECT, REFUSED, TIMEOUT
    }

    static PairResult failed(String from, String to, Expectation expected, String failure, boolean timedOut) {
        return new PairResult(from, to, expected, false, timedOut ? "timeout" : "refused", null, null, null, 0, 0, failure);
    }

    boolean asExpected() {
        return switch (expected) {
            case CONNECT -> connected && bytesVerified > 0;
            case REFUSED -> !connected && module.equals("refused");
            case TIMEOUT -> !connected && module.equals("timeout");
        };
    }
}
