package io.traverse.cli;

import java.net.BindException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * What a command that failed prints: one line, {@code traverse CMD: what failed: why}, built from
 * the messages of the exception and its causes (each said once), and exit code 1. The stack trace
 * goes to the log at debug level, so {@code --log-level debug} shows it and nobody else sees it.
 */
public final class FailureLine implements IExecutionExceptionHandler {
    static final int EXIT_FAILED = 1;

    @Override
    public int handleExecutionException(Exception failure, CommandLine command, ParseResult parsed) {
        String line = "traverse " + command.getCommandName() + ": " + describe(failure);
        // Looked up here, not when the command is built: the first logger fixes the level, and --log-level is not
        // applied yet then.
        Logger log = LoggerFactory.getLogger(FailureLine.class);
        log.debug("{}", line, failure);
        command.getErr().println(line);
        command.getErr().flush();
        return EXIT_FAILED;
    }

    /** The messages of the failure and its causes, outermost first, each that adds something said once. */
    public static String describe(Throwable failure) {
        List<String> parts = new ArrayList<>();
        String said = "";
        for (Throwable t = failure; t != null && parts.size() < 6; t = t.getCause() == t ? null : t.getCause()) {
            String message = message(t);
            if (message.isEmpty() || said.contains(message)) {
                continue;
            }
            parts.add(message);
            said = said + " " + message;
        }
        if (parts.isEmpty()) {
            return failure.getClass().getSimpleName();
        }
        return String.join(": ", parts);
    }

    /** A message that reads on its own: the JDK's terse ones get their exception's meaning. */
    private static String message(Throwable t) {
        String m = t.getMessage() == null ? "" : t.getMessage().strip();
        if (t instanceof UnknownHostException) {
            return "unknown host " + m;
        }
        if (t instanceof NoSuchFileException) {
            return "no such file " + m;
        }
        if (t instanceof AccessDeniedException) {
            return "permission denied: " + m;
        }
        String lower = m.toLowerCase(Locale.ROOT);
        if (t instanceof BindException
                && !lower.contains("address")
                && !lower.contains("bind")
                && !lower.contains("listen")) {
            return "cannot bind: " + m;
        }
        if (t instanceof ConnectException && m.isEmpty()) {
            return "connection refused";
        }
        // a wrapper that only repeats its cause's class and message ("java.io.IOException: x") adds nothing
        if (t.getCause() != null && m.equals(String.valueOf(t.getCause()))) {
            return "";
        }
        return m;
    }
}
