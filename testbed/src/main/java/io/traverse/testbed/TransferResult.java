package io.traverse.testbed;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The outcome of one {@code connect} command of a {@link NodeAgent}, as one line of text:
 * <pre>
 * result ok module=direct setup-us=1830 elapsed-ms=41 bytes=4194304 served-by=NODE-ID peer=198.18.0.1:40512
 * result failed elapsed-ms=2004 error=java.net.SocketTimeoutException: Connect timed out (...)
 * </pre>
 * {@code error} is always last and runs to the end of the line.
 *
 * @param ok            true if the connection was made and the data verified end to end
 * @param module        the module that made the connection ({@code Traverse.connectionInfo}), or empty
 * @param setupMicros   connection setup time as the node measured it, or -1
 * @param elapsedMillis from the start of connect until success (data verified) or failure
 * @param bytes         bytes sent and verified
 * @param servedBy      node id of the verification service that answered, or empty
 * @param peer          the source address the far node saw (after NAT), or empty
 * @param error         exception type and message when failed, else empty
 */
public record TransferResult(boolean ok, String module, long setupMicros, long elapsedMillis, long bytes,
        String servedBy, String peer, String error) {

    static TransferResult succeeded(String module, long setupMicros, long elapsedMillis, long bytes, String servedBy,
            String peer) {
        return new TransferResult(true, module, setupMicros, elapsedMillis, bytes, servedBy, peer, "");
    }

    static TransferResult failed(long elapsedMillis, Throwable error) {
        String text = error.getClass().getName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
        return new TransferResult(false, "", -1, elapsedMillis, 0, "", "", text.replaceAll("[\\r\\n]+", " "));
    }

    /** The setup time in milliseconds. */
    public double setupMillis() {
        return setupMicros / 1000.0;
    }

    String line() {
        if (ok) {
            return "result ok module=" + module + " setup-us=" + setupMicros + " elapsed-ms=" + elapsedMillis
                    + " bytes=" + bytes + " served-by=" + servedBy + " peer=" + peer;
        }
        return "result failed elapsed-ms=" + elapsedMillis + " error=" + error;
    }

    static TransferResult parse(String line) {
        String[] head = line.split(" ", 3);
        if (head.length < 3 || !head[0].equals("result") || !(head[1].equals("ok") || head[1].equals("failed"))) {
            throw new TestbedException("unexpected result line from node agent: '" + line + "'");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        String rest = head[2];
        while (!rest.isEmpty()) {
            int eq = rest.indexOf('=');
            if (eq < 0) {
                throw new TestbedException("unexpected result line from node agent: '" + line + "'");
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
            return new TransferResult(head[1].equals("ok"), fields.getOrDefault("module", ""),
                    Long.parseLong(fields.getOrDefault("setup-us", "-1")), Long.parseLong(fields.getOrDefault("elapsed-ms", "-1")),
                    Long.parseLong(fields.getOrDefault("bytes", "0")), fields.getOrDefault("served-by", ""),
                    fields.getOrDefault("peer", ""), fields.getOrDefault("error", ""));
        } catch (NumberFormatException e) {
            throw new TestbedException("unexpected number in result line from node agent: '" + line + "'");
        }
    }
}
