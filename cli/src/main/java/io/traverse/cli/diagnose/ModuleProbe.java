package io.traverse.cli.diagnose;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.FailureScope;
import java.io.IOException;
import java.net.Socket;
import java.time.Duration;

/**
 * One module on its own against the target: a node that has only that module connects once.
 * "Reached" also counts a definitive answer from the target (no such port, backlog full): the
 * module got through to the node, which is what a diagnosis wants to know.
 */
record ModuleProbe(String module, Outcome outcome, Duration setup, Duration total, String detail) {
    /** How long the far end may stay silent and still count as a live service (a client-speaks-first protocol says nothing). */
    static final int SERVICE_CHECK_MILLIS = 500;

    enum Outcome {
        CONNECTED("works"),
        ANSWERED("reaches the node"),
        CLOSED_AT_ONCE("service gone"),
        FAILED("fails");

        final String text;

        Outcome(String text) {
            this.text = text;
        }
    }

    /**
     * Starts a node with only {@code module}, waits for its hub link, connects once and, when
     * {@code checkService}, watches the connection for {@link #SERVICE_CHECK_MILLIS}: a service
     * behind an exposed name that is down shows as a connection the far end closes at once.
     */
    static ModuleProbe run(
            TraverseConfig.Builder base, String module, String host, int port, Duration timeout, boolean checkService) {
        long start = System.nanoTime();
        TraverseConfig config = base.modules(module).connectTimeout(timeout).build();
        try (Traverse node = Traverse.start(config)) {
            node.awaitHubLink(config.hubTimeout());
            long t0 = System.nanoTime();
            try (Socket s = node.socketFactory().createSocket(host, port)) {
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                // A relayed connection has no IP peer: its remote address is the virtual one asked for.
                String detail = s.getRemoteSocketAddress() instanceof io.traverse.VirtualSocketAddress
                        ? "relayed by the hubs"
                        : s instanceof io.traverse.connect.InBandEndOfStreamSocket
                                ? "through an SSH tunnel to " + s.getRemoteSocketAddress()
                                : "to " + s.getRemoteSocketAddress();
                String closed = checkService ? closedAtOnce(s) : null;
                return closed == null
                        ? new ModuleProbe(module, Outcome.CONNECTED, took, since(start), detail)
                        : new ModuleProbe(
                                module, Outcome.CLOSED_AT_ONCE, took, since(start), detail + ", but " + closed);
            } catch (IOException e) {
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                return new ModuleProbe(
                        module,
                        answeredByTarget(e) ? Outcome.ANSWERED : Outcome.FAILED,
                        took,
                        since(start),
                        firstLine(e));
            }
        } catch (IOException | RuntimeException e) {
            return new ModuleProbe(
                    module,
                    Outcome.FAILED,
                    Duration.ZERO,
                    since(start),
                    "could not start a node with only this module: " + firstLine(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ModuleProbe(module, Outcome.FAILED, Duration.ZERO, since(start), "interrupted");
        }
    }

    /** Why the far end ended the connection within the check's time, or null if it did not (it sent bytes, or waits for ours). */
    private static String closedAtOnce(Socket s) {
        try {
            s.setSoTimeout(SERVICE_CHECK_MILLIS);
            return s.getInputStream().read() < 0
                    ? "the far end closed it at once (is the service behind it running?)"
                    : null;
        } catch (java.net.SocketTimeoutException silent) {
            return null;
        } catch (IOException e) {
            return "the far end reset it at once (is the service behind it running?): " + firstLine(e);
        }
    }

    private static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    /** Whether the failure, or one it carries (a race keeps each attempt's as suppressed), is the target's own answer. */
    private static boolean answeredByTarget(Throwable e) {
        if (e instanceof AttemptFailedException a && a.scope() == FailureScope.TARGET) {
            return true;
        }
        for (Throwable s : e.getSuppressed()) {
            if (answeredByTarget(s)) {
                return true;
            }
        }
        return e.getCause() != null && e.getCause() != e && answeredByTarget(e.getCause());
    }

    private static String firstLine(Throwable e) {
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
