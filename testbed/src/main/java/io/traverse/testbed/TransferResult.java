package io.traverse.testbed;

/**
 * The outcome of one {@code connect} command of a {@link NodeAgent}, as one line of text:
 * <pre>
 * result ok module=direct setup-us=1830 elapsed-ms=41 bytes=4194304 served-by=NODE-ID peer=198.18.0.1:40512 protection=NONE
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
 * @param protection    what Traverse did to the bytes ({@code io.traverse.Protection}: NONE, SEALED, TLS), or empty
 * @param error         exception type and message when failed, else empty
 */
public record TransferResult(
        boolean ok,
        String module,
        long setupMicros,
        long elapsedMillis,
        long bytes,
        String servedBy,
        String peer,
        String protection,
        String error) {

    static TransferResult succeeded(
            String module,
            long setupMicros,
            long elapsedMillis,
            long bytes,
            String servedBy,
            String peer,
            String protection) {
        return new TransferResult(true, module, setupMicros, elapsedMillis, bytes, servedBy, peer, protection, "");
    }

    static TransferResult failed(long elapsedMillis, Throwable error) {
        String text = error.getClass().getName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
        return new TransferResult(false, "", -1, elapsedMillis, 0, "", "", "", text.replaceAll("[\\r\\n]+", " "));
    }

    /** The setup time in milliseconds. */
    public double setupMillis() {
        return setupMicros / 1000.0;
    }

    String line() {
        if (ok) {
            return "result ok module=" + module + " setup-us=" + setupMicros + " elapsed-ms=" + elapsedMillis
                    + " bytes=" + bytes + " served-by=" + servedBy + " peer=" + peer + " protection=" + protection;
        }
        return "result failed elapsed-ms=" + elapsedMillis + " error=" + error;
    }

    static TransferResult parse(String line) {
        AgentReplyLine reply = AgentReplyLine.parse(line, "result", "result");
        try {
            return new TransferResult(
                    reply.ok(),
                    reply.text("module", ""),
                    reply.number("setup-us", -1),
                    reply.number("elapsed-ms", -1),
                    reply.number("bytes", 0),
                    reply.text("served-by", ""),
                    reply.text("peer", ""),
                    reply.text("protection", ""),
                    reply.text("error", ""));
        } catch (NumberFormatException e) {
            throw new TestbedException("unexpected number in result line from node agent: '" + line + "'");
        }
    }
}
