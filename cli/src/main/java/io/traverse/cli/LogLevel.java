package io.traverse.cli;

/**
 * The log level of the {@code traverse} command (SLF4J simple): set from {@code --log-level}
 * before any logger exists, else each subcommand's own default.
 */
public final class LogLevel {
    static final String PROPERTY = "org.slf4j.simpleLogger.defaultLogLevel";

    private LogLevel() {
    }

    static void set(String level) {
        System.setProperty(PROPERTY, level);
    }

    /** Sets the level unless the user chose one. */
    public static void defaultTo(String level) {
        if (System.getProperty(PROPERTY) == null) {
            set(level);
        }
    }
}
