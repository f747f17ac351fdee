package io.traverse.bench.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A Java main class in a child process on this JVM's class path, driven by lines on its stdin and
 * answering with lines on its stdout. Every line goes to the given consumer on a reader thread;
 * lines that start with a word given to {@link #await} can also be waited for. The child is
 * killed (SIGKILL) when this closes and, through a shutdown hook, when this JVM exits, so no run
 * leaves processes behind, also on failure. Its stderr goes to this process's stderr.
 */
final class ChildJvm implements AutoCloseable {
    private final String name;
    private final Process process;
    private final PrintWriter in;
    private final BlockingQueue<String> awaited = new LinkedBlockingQueue<>();
    private final Thread hook;
    private volatile String awaitedPrefix;

    /** @param ready the start of the first line to {@link #ask} for (kept even if it comes before the ask) */
    ChildJvm(
            String name,
            List<String> jvmOptions,
            Class<?> main,
            List<String> args,
            String ready,
            Consumer<String> lines)
            throws IOException {
        this(name, null, jvmOptions, main, args, ready, lines);
    }

    /** @param java the java command to run, null: the one running this JVM */
    ChildJvm(
            String name,
            String java,
            List<String> jvmOptions,
            Class<?> main,
            List<String> args,
            String ready,
            Consumer<String> lines)
            throws IOException {
        this.name = name;
        this.awaitedPrefix = ready;
        List<String> command = new ArrayList<>();
        command.add(
                java != null ? java : ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmOptions);
        // Diagnosis of a run (GC logs, JFR): BENCH_CHILD_JVM_OPTS goes to every child JVM, %n in it becomes the child's
        // name.
        String extra = System.getenv().getOrDefault("BENCH_CHILD_JVM_OPTS", "").trim();
        if (!extra.isEmpty()) {
            command.addAll(List.of(extra.replace("%n", name).split("\\s+")));
        }
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                main.getName()));
        command.addAll(args);
        process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        hook = new Thread(process::destroyForcibly, "kill-" + name);
        Runtime.getRuntime().addShutdownHook(hook);
        in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        Thread reader = new Thread(
                () -> {
                    try {
                        for (String line = out.readLine(); line != null; line = out.readLine()) {
                            String prefix = awaitedPrefix;
                            if (!prefix.isEmpty() && line.startsWith(prefix)) {
                                awaited.add(line);
                            }
                            lines.accept(line);
                        }
                    } catch (IOException e) {
                        // the child is gone
                    }
                    awaited.add("EXIT");
                },
                "out-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    String name() {
        return name;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    void send(String command) {
        in.println(command);
    }

    /**
     * Sends {@code command} (null: none) and waits for the next line that starts with {@code prefix}.
     *
     * @throws IOException if the child exits or says nothing of the kind within {@code seconds}
     */
    synchronized String ask(String command, String prefix, long seconds) throws IOException, InterruptedException {
        if (command != null || !prefix.equals(awaitedPrefix)) {
            awaited.clear();
            awaitedPrefix = prefix;
        }
        if (command != null) {
            send(command);
        }
        String line = awaited.poll(seconds, TimeUnit.SECONDS);
        awaitedPrefix = "";
        if (line == null || line.equals("EXIT") && !prefix.equals("EXIT")) {
            throw new IOException(name
                    + (line == null ? " said no " + prefix + " within " + seconds + " s" : " exited")
                    + (process.isAlive() ? "" : " (exit code " + process.exitValue() + ")"));
        }
        return line;
    }

    /** SIGKILL, as a crashed machine: the kernel closes its sockets, nothing more is said on them. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        in.close();
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // this JVM is already shutting down: the hook runs anyway
        }
    }
}
