package io.traverse.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --log-file}: the log goes to the file, appended across runs, and not to the terminal. */
class LogFileTest {
    @TempDir
    Path dir;

    @Test
    void aHubLogsToTheFileAppendingAcrossRestartsAndNothingToTheTerminal() throws Exception {
        Path log = dir.resolve("hub.log");
        Files.writeString(log, "a line from before\n");
        Run first = runHubUntilListening(log);
        Run second = runHubUntilListening(log);

        assertThat(first.terminal).isEmpty();
        assertThat(second.terminal).isEmpty();
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        assertThat(lines.get(0)).isEqualTo("a line from before");
        assertThat(lines)
                .filteredOn(l ->
                        l.contains("INFO") && l.contains("Hub log-file-test") && l.contains("listening on /127.0.0.1:"))
                .hasSize(2);
        assertThat(lines)
                .filteredOn(l -> l.contains("Hub log-file-test stopped"))
                .hasSize(2);
    }

    @Test
    void aLogFileThatCannotBeWrittenIsAUsageErrorOnTheTerminal() {
        Path missing = dir.resolve("no-such-dir/hub.log");
        StringWriter err = new StringWriter();
        int exit = TraverseCommand.commandLine()
                .setErr(new PrintWriter(err, true))
                .execute("hub", "--log-file", missing.toString(), "--port", "0");
        assertThat(exit).isEqualTo(2);
        assertThat(err.toString())
                .contains("cannot write the log file " + missing + ": ")
                .contains("No such file or directory");
        assertThat(missing.getParent()).doesNotExist();
    }

    private record Run(String terminal) {}

    /** Runs {@code traverse hub --log-file LOG} in its own JVM until the file says it is listening, then SIGTERM. */
    private Run runHubUntilListening(Path log) throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        long before = Files.readAllLines(log).stream()
                .filter(l -> l.contains("listening on"))
                .count();
        Path terminal = dir.resolve("terminal.txt");
        Process process = new ProcessBuilder(
                        java.toString(),
                        "-cp",
                        classPath,
                        "io.traverse.cli.TraverseCommand",
                        "hub",
                        "--log-file",
                        log.toString(),
                        "--name",
                        "log-file-test",
                        "--bind",
                        "127.0.0.1",
                        "--port",
                        "0",
                        "--advertise",
                        "none",
                        "--token",
                        "t",
                        "--http-port",
                        "-1",
                        "--discovery-port",
                        "-1")
                .redirectErrorStream(true)
                .redirectOutput(terminal.toFile())
                .start();
        try {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !process.isAlive()
                            || Files.readAllLines(log).stream()
                                            .filter(l -> l.contains("listening on"))
                                            .count()
                                    > before);
            process.toHandle().destroy(); // SIGTERM: the hub closes cleanly and logs that it stopped
            assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        } finally {
            process.destroyForcibly();
        }
        return new Run(Files.readString(terminal));
    }
}
