package io.traverse.cli;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The log level and destination of the {@code traverse} command (SLF4J simple): set from
 * {@code --log-level} and {@code --log-file} before any logger exists, else each subcommand's own
 * default level, on standard error.
 */
public final class LogLevel {
    static final String PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";

    private LogLevel() {}

    static void set(String level) {
        System.setProperty(PROPERTY, level);
    }

    /** Sets the level unless the user chose one. */
    public static void defaultTo(String level) {
        if (System.getProperty(PROPERTY) == null) {
            set(level);
        }
    }

    /**
     * Appends the log to FILE from now on. slf4j-simple's own {@code logFile} setting would empty
     * the file at every start (a restarted daemon would lose the lines that tell why it stopped),
     * so the log stays on standard error, the binding's default, and standard error becomes the
     * file. Returns the standard error the command had, for the messages meant for its user.
     */
    static PrintStream appendTo(Path file) throws IOException {
        PrintStream terminal = System.err;
        System.setErr(new PrintStream(new FileOutputStream(file.toFile(), true), true, StandardCharsets.UTF_8));
        return terminal;
    }
}
