package io.traverse.ssh;

import com.jcraft.jsch.JSch;
import com.jcraft.jsch.Slf4jLogger;

/**
 * JSch's own log through SLF4J (logger {@code com.jcraft.jsch}), unless the application gave JSch
 * a logger of its own. JSch reports every step of a login at its INFO level (connecting, the
 * algorithms chosen, "Authentication succeeded"); those go to DEBUG here, so a node or hub at
 * INFO logs one line per login (ours) and JSch's warnings and errors as they are.
 */
final class JschLogging implements com.jcraft.jsch.Logger {
    private final com.jcraft.jsch.Logger slf4j = new Slf4jLogger();

    private JschLogging() {}

    /** Gives {@code jsch} (this instance only) the SLF4J logger, if no logger was set for JSch as a whole. */
    static void useSlf4jUnlessSet(JSch jsch) {
        // JSch's default is an anonymous do-nothing logger declared in JSch itself; anything else is the application's.
        Class<?> current = JSch.getLogger().getClass();
        if (current.isAnonymousClass() && current.getEnclosingClass() == JSch.class) {
            jsch.setInstanceLogger(new JschLogging());
        }
    }

    private static int level(int jschLevel) {
        return jschLevel == INFO ? DEBUG : jschLevel;
    }

    @Override
    public boolean isEnabled(int level) {
        return slf4j.isEnabled(level(level));
    }

    @Override
    public void log(int level, String message) {
        slf4j.log(level(level), message);
    }

    @Override
    public void log(int level, String message, Throwable cause) {
        slf4j.log(level(level), message, cause);
    }
}
