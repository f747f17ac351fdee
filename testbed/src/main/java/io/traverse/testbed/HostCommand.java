package io.traverse.testbed;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one command to completion with a timeout, feeding it optional standard input and capturing
 * both outputs. A command that exits non-zero or outlives its timeout fails with
 * {@link CommandFailedException}, whose message names the command, its exit code and its stderr.
 */
public final class HostCommand {
    /** Output readers: two per running command, daemons so that they never hold the JVM. */
    private static final ExecutorService READERS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "testbed-command-output");
        t.setDaemon(true);
        return t;
    });

    private HostCommand() {}

    /** Runs the command; throws unless it exits 0 within {@code timeout}. */
    public static CommandResult run(List<String> command, String input, Duration timeout) {
        CommandResult result = runAllowingFailure(command, input, timeout);
        if (!result.succeeded()) {
            throw new CommandFailedException(result);
        }
        return result;
    }

    /** Runs the command and returns however it exited; throws only if it cannot start or outlives {@code timeout}. */
    public static CommandResult runAllowingFailure(List<String> command, String input, Duration timeout) {
        Process process;
        try {
            process = new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new TestbedException("cannot start " + String.join(" ", command) + ": " + e.getMessage(), e);
        }
        CompletableFuture<String> stdout =
                CompletableFuture.supplyAsync(() -> readAll(process.getInputStream()), READERS);
        CompletableFuture<String> stderr =
                CompletableFuture.supplyAsync(() -> readAll(process.getErrorStream()), READERS);
        try (OutputStream in = process.getOutputStream()) {
            if (input != null) {
                in.write(input.getBytes(StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // The command exited without reading its input; its exit code and stderr tell why.
        }
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
                CommandResult partial = new CommandResult(command, -1, collected(stdout), collected(stderr));
                throw new CommandFailedException(
                        "command did not finish within " + timeout.toMillis() + " ms: " + partial.commandLine(),
                        partial);
            }
            return new CommandResult(command, process.exitValue(), collected(stdout), collected(stderr));
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new TestbedException("interrupted while running " + String.join(" ", command), e);
        }
    }

    private static String collected(CompletableFuture<String> output) throws InterruptedException {
        try {
            return output.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return "(output unreadable: " + e.getCause() + ")";
        } catch (TimeoutException e) {
            // A child of the command still holds the pipe open.
            return "(output still open)";
        }
    }

    private static String readAll(InputStream stream) {
        try (stream) {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
