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
record ModuleProbe(String module, Outcome outcome, Duration time, String detail) {
    enum Outcome {
        CONNECTED("works"),
        ANSWERED("reaches the node"),
        FAILED("fails");

        final String text;

        Outcome(String text) {
            this.text = text;
        }
    }

    static ModuleProbe run(TraverseConfig.Builder base, String module, String host, int port, Duration timeout) {
        TraverseConfig config = base.modules(module).connectTimeout(timeout).build();
        try (Traverse node = Traverse.start(config)) {
            node.awaitHubLink(config.hubTimeout());
            long t0 = System.nanoTime();
            try (Socket s = node.socketFactory().createSocket(host, port)) {
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                // A relayed connection has no IP peer: its remote address is the virtual one asked for.
                String detail = s.getRemoteSocketAddress() instanceof io.traverse.VirtualSocketAddress ? "relayed by the hubs"
                        : "to " + s.getRemoteSocketAddress();
                return new ModuleProbe(module, Outcome.CONNECTED, took, detail);
            } catch (IOException e) {
                Duration took = Duration.ofNanos(System.nanoTime() - t0);
                return new ModuleProbe(module, answeredByTarget(e) ? Outcome.ANSWERED : Outcome.FAILED, took, firstLine(e));
            }
        } catch (IOException | RuntimeException e) {
            return new ModuleProbe(module, Outcome.FAILED, Duration.ZERO, "could not start a node with only this module: " + firstLine(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ModuleProbe(module, Outcome.FAILED, Duration.ZERO, "interrupted");
        }
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
