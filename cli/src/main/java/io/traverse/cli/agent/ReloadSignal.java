package io.traverse.cli.agent;

import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * SIGHUP runs the agent's reload. The JDK has no public API for signals; {@code sun.misc.Signal}
 * (module jdk.unsupported, kept for exactly this use and stable since Java 1.2) is the only way,
 * and it belongs in a command's main path, never in the library. Without it (a JVM run with
 * {@code -Xrs}, a platform without SIGHUP, or a process started with SIGHUP ignored, as nohup
 * does: the JVM then keeps it ignored) the agent still runs and says so; only reloading needs a
 * restart.
 */
final class ReloadSignal {
    private ReloadSignal() {}

    /** Runs {@code reload} on every SIGHUP (on the JVM's signal thread, one at a time); true if installed. */
    static boolean install(Runnable reload) {
        try {
            sun.misc.SignalHandler before = Signal.handle(new Signal("HUP"), signal -> reload.run());
            if (before == sun.misc.SignalHandler.SIG_IGN) {
                // Inherited as ignored (started under nohup): the JVM keeps ignoring it and never calls the handler.
                LoggerFactory.getLogger(ReloadSignal.class)
                        .warn(
                                "SIGHUP is ignored in this process (started under nohup?):"
                                        + " reloading the file needs a restart; start the agent without nohup (the systemd unit does)");
                return false;
            }
            return true;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            LoggerFactory.getLogger(ReloadSignal.class)
                    .warn("SIGHUP cannot be handled here ({}): reloading the file needs a restart", e.getMessage());
            return false;
        }
    }
}
