package io.traverse.testbed;

import java.util.LinkedHashMap;
import java.util.Map;

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
public record RoundTripResult(boolean ok, String module, long setupMicros, int hubs, int rounds, long medianNanos, long minNanos,
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
            return "rtt ok module=" + module + " setup-us=" + setupMicros + " hubs=" + hubs + " rounds=" + rounds + " median-ns="
                    + medianNanos + " min-ns=" + minNanos;
        }
        return "rtt failed error=" + error;
    }

    static RoundTripResult parse(String line) {
        String[] head = line.split(" ", 3);
        if (head.length < 3 || !head[0].equals("rtt") || !(head[1].equals("ok") || head[1].equals("failed"))) {
            throw new TestbedException("unexpected round-trip line from node agent: '" + line + "'");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        String rest = head[2];
        while (!rest.isEmpty()) {
            int eq = rest.indexOf('=');
            if (eq < 0) {
                throw new TestbedException("unexpected round-trip line from node agent: '" + line + "'");
            }
            String key = rest.substring(0, eq);
            if (key.equals("error")) {
                fields.put(key, rest.substring(eq + 1));
                break;
            }
            int space = rest.indexOf(' ', eq);
            fields.put(key, space < 0 ? rest.substring(eq + 1) : rest.substring(eq + 1, space));
            rest = space < 0 ? "" : rest.substring(space + 1);
        }
        try {
            return new RoundTripResult(head[1].equals("ok"), fields.getOrDefault("module", ""),
                    Long.parseLong(fields.getOrDefault("setup-us", "-1")), Integer.parseInt(fields.getOrDefault("hubs", "0")),
                    Integer.parseInt(fields.getOrDefault("rounds", "0")),
                    Long.parseLong(fields.getOrDefault("median-ns", "-1")), Long.parseLong(fields.getOrDefault("min-ns", "-1")),
                    fields.getOrDefault("error", ""));
        } catch (NumberFormatException e) {
            throw new TestbedException("unexpected number in round-trip line from node agent: '" + line + "'");
        }
    }
}
