package io.traverse.testbed;

/**
 * The outcome of one {@code rtt} or {@code plain-rtt} command of a {@link NodeAgent}: one-byte
 * round trips over one connection, as one line of text:
 * <pre>
 * rtt ok module=routed setup-us=2210 hubs=2 rounds=200 median-ns=91000 min-ns=70500
 * rtt failed error=java.net.ConnectException: Connection refused
 * </pre>
 *
 * @param ok          true if the connection was made and every byte came back
 * @param module      the module that made the connection ({@code plain} for a plain socket), or empty
 * @param setupMicros connection setup time, or -1
 * @param hubs        hubs the connection runs through (0 for a kernel socket)
 * @param rounds      round trips measured (after as many again to warm up)
 * @param medianNanos median round-trip time
 * @param minNanos    shortest round-trip time
 * @param error       exception type and message when failed, else empty
 */
public record RoundTripResult(
        boolean ok,
        String module,
        long setupMicros,
        int hubs,
        int rounds,
        long medianNanos,
        long minNanos,
        String error) {

    static RoundTripResult failed(Throwable error) {
        String text = error.getClass().getName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
        return new RoundTripResult(false, "", -1, 0, 0, -1, -1, text.replaceAll("[\\r\\n]+", " "));
    }

    /** The median round trip in microseconds. */
    public double medianMicros() {
        return medianNanos / 1000.0;
    }

    String line() {
        if (ok) {
            return "rtt ok module=" + module + " setup-us=" + setupMicros + " hubs=" + hubs + " rounds=" + rounds
                    + " median-ns=" + medianNanos + " min-ns=" + minNanos;
        }
        return "rtt failed error=" + error;
    }

    static RoundTripResult parse(String line) {
        AgentReplyLine reply = AgentReplyLine.parse(line, "rtt", "round-trip");
        try {
            return new RoundTripResult(
                    reply.ok(),
                    reply.text("module", ""),
                    reply.number("setup-us", -1),
                    (int) reply.number("hubs", 0),
                    (int) reply.number("rounds", 0),
                    reply.number("median-ns", -1),
                    reply.number("min-ns", -1),
                    reply.text("error", ""));
        } catch (NumberFormatException e) {
            throw new TestbedException("unexpected number in round-trip line from node agent: '" + line + "'");
        }
    }
}
