package io.traverse.cli.demo;

import java.time.Duration;
import java.util.Locale;

/** What happened when one demo node connected to another, and what the topology said should happen. */
record PairResult(
        String from,
        String to,
        Expectation expected,
        boolean connected,
        String module,
        Duration firstSetup,
        Duration cachedSetup,
        Duration medianRtt,
        double megabytesPerSecond,
        long bytesVerified,
        String failure) {

    /** What the two firewalls (and the sshd, and where the nodes listen) should make of the pair. */
    enum Expectation {
        /** The target lets the source in. */
        DIRECT("direct"),
        /** The target lets in only its site's sshd, which the source logs in to and forwards through. */
        DIRECT_SSH("direct/ssh"),
        /** The target keeps the source out, but may dial it back. */
        REVERSE("reverse"),
        /** The target dials the source back through the source's site's sshd. */
        REVERSE_SSH("reverse/ssh"),
        /** Neither lets the other in, both can dial out, and their hubs see them at public addresses: TCP simultaneous open. */
        SPLICE("splice"),
        /** Neither lets the other in: the hubs relay the connection. */
        ROUTED("routed"),
        /** Neither lets the other in, and both say so at once. */
        REFUSED("refused"),
        /** Neither lets the other in, and one of them drops silently. */
        TIMEOUT("timeout");

        /** As the table shows a connection: the module, "/ssh" when it went through an SSH tunnel. */
        final String shown;

        Expectation(String shown) {
            this.shown = shown;
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How the table shows a pair whose first connection was relayed and whose next one spliced. */
    static final String UPGRADED_TO_SPLICE = "routed>splice";

    static PairResult failed(String from, String to, Expectation expected, String failure, boolean timedOut) {
        return new PairResult(
                from, to, expected, false, timedOut ? "timeout" : "refused", null, null, null, 0, 0, failure);
    }

    boolean asExpected() {
        return switch (expected) {
            case REFUSED, TIMEOUT -> !connected && module.equals(expected.shown);
            // A first splice mostly loses its race to routed; splice, cached once it gets through, makes the next one.
            case SPLICE ->
                connected && bytesVerified > 0 && (module.equals(expected.shown) || module.equals(UPGRADED_TO_SPLICE));
            default -> connected && bytesVerified > 0 && module.equals(expected.shown);
        };
    }
}
