package io.traverse.bench.hub;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator's handle on one {@link HubGroup} JVM: sends it a command line, reads its one
 * line of answer. Closing it ends the JVM (QUIT, then forcibly); so does the group itself when its
 * input ends, should this JVM die without closing it.
 */
final class HubGroupChild implements AutoCloseable {
    private final int number;
    private final Process process;
    private final BufferedReader out;
    private final PrintWriter in;

    HubGroupChild(int number, String maxHeap, List<String> properties) throws IOException {
        this.number = number;
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx" + maxHeap,
                "-Xms" + maxHeap,
                "-Xss512k",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=error"));
        // Diagnosis (GC logs, JFR) and other collectors: BENCH_CHILD_JVM_OPTS goes to every group, %n becomes
        // "group-N".
        String extra = System.getenv().getOrDefault("BENCH_CHILD_JVM_OPTS", "").trim();
        if (!extra.matches(".*-XX:\\+Use\\w+GC.*")) {
            command.addAll(List.of("-XX:+UseParallelGC", "-XX:NewRatio=1"));
        }
        if (!extra.isEmpty()) {
            command.addAll(List.of(extra.replace("%n", "group-" + number).split("\\s+")));
        }
        command.addAll(properties);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), HubGroup.class.getName()));
        process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    /** Sends a command without waiting; {@link #answer()} reads its answer (so several groups can work at once). */
    void send(String command) {
        in.println(command);
    }

    String answer() throws IOException {
        String line = out.readLine();
        if (line == null) {
            throw new IOException("hub group " + number + " (pid " + process.pid() + ") ended");
        }
        return line;
    }

    String call(String command) throws IOException {
        send(command);
        return answer();
    }

    long pid() {
        return process.pid();
    }

    /** Asks the group to end, without waiting (see {@link #close()}). */
    void quit() {
        in.println("QUIT");
    }

    @Override
    public void close() {
        quit();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
