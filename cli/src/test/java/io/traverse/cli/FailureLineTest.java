package io.traverse.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Ordinary mistakes end in one line that names the cause, exit code 1 and no stack trace
 *. Each runs the command as {@code main} would, in this JVM, on loopback only.
 */
class FailureLineTest {
    private record Outcome(int exitCode, String out, String err) {}

    private static Outcome run(String... args) {
        CommandLine command = TraverseCommand.commandLine();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        command.setOut(new PrintWriter(out, true));
        command.setErr(new PrintWriter(err, true));
        int exit = command.execute(args);
        return new Outcome(exit, out.toString(), err.toString());
    }

    private static void assertOneLine(Outcome outcome, String... mentions) {
        assertOneLine(outcome, FailureLine.EXIT_FAILED, mentions);
    }

    /** One line on standard error naming everything in {@code mentions}, no stack trace, colour or usage, and {@code exitCode}. */
    private static void assertOneLine(Outcome outcome, int exitCode, String... mentions) {
        assertThat(outcome.exitCode()).isEqualTo(exitCode);
        assertThat(outcome.err().strip().lines()).as(outcome.err()).hasSize(1);
        assertThat(outcome.err()).doesNotContain("\tat ", "Exception:", "\u001b[", "Usage:");
        for (String mention : mentions) {
            assertThat(outcome.err()).contains(mention);
        }
    }

    @Test
    void describesEveryCauseOnceOutermostFirst() {
        IOException inner = new IOException("connection refused by 10.0.0.1:17000");
        IOException wrapper = new IOException(inner.toString(), inner);
        IOException outer = new IOException("no hub link", wrapper);
        assertThat(FailureLine.describe(outer)).isEqualTo("no hub link: connection refused by 10.0.0.1:17000");
        assertThat(FailureLine.describe(new UnknownHostException("hub.invalid")))
                .isEqualTo("unknown host hub.invalid");
        assertThat(FailureLine.describe(new IllegalStateException())).isEqualTo("IllegalStateException");
        IOException same = new IOException("x: y");
        assertThat(FailureLine.describe(new IOException("x: y", same))).isEqualTo("x: y");
    }

    @Test
    void forwardToAPortInUseNamesTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long start = System.nanoTime();
            Outcome outcome = run("forward", String.valueOf(taken.getLocalPort()), "db:5432", "--hub", "127.0.0.1:1");
            assertOneLine(outcome, "cannot listen on 127.0.0.1:" + taken.getLocalPort(), "in use");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void hubOnAPortInUseNamesTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Outcome outcome = run(
                    "hub",
                    "--bind",
                    "127.0.0.1",
                    "--port",
                    String.valueOf(taken.getLocalPort()),
                    "--http-port",
                    "-1",
                    "--discovery-port",
                    "-1");
            assertOneLine(
                    outcome,
                    "cannot listen for link connections on 127.0.0.1:" + taken.getLocalPort(),
                    "address already in use");
        }
    }

    @Test
    void aHubAddressWithoutANumberSaysItCameFromTheOption() {
        Outcome outcome = run("forward", "0", "db:5432", "--hub", "127.0.0.1:notaport");
        assertOneLine(outcome, "(from --hub)", "'notaport'");
    }

    @Test
    void aDestinationWithoutAPortSaysWhatItShouldBe() {
        Outcome outcome = run("forward", "0", "db", "--hub", "127.0.0.1:1");
        assertOneLine(outcome, "'db'", "NAME:PORT");
    }

    @Test
    void anInvalidConfiguredValueNamesTheKeyAndWhereItCameFrom() {
        System.setProperty("traverse.port.range", "abc");
        try {
            Outcome outcome = run("forward", "0", "db:5432", "--hub", "127.0.0.1:1");
            assertOneLine(outcome, "traverse.port.range = 'abc'", "system property");
        } finally {
            System.clearProperty("traverse.port.range");
        }
    }

    @Test
    void statusPointedAtSomethingThatIsNotHttpSaysSo() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread closer = new Thread(
                    () -> {
                        // every connection (the JDK client retries a GET once) closed without an answer, as a link port
                        // does
                        for (int i = 0; i < 5; i++) {
                            try (Socket s = silent.accept()) {
                                s.getInputStream().read();
                            } catch (IOException e) {
                                return; // the server socket is closed: the test is over
                            }
                        }
                    },
                    "closes-without-answer");
            closer.start();
            Outcome outcome = run("status", "127.0.0.1:" + silent.getLocalPort());
            closer.join(10_000);
            assertOneLine(outcome, "is not a hub's HTTP port", "--http-port");
        }
    }

    @Test
    void aConfigFileWithAnUnknownKeyIsOneUsageLineNamingFileAndKey(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("hub.properties");
        Files.writeString(file, "traverse.hub.prot = 17000\n");
        Outcome outcome =
                run("hub", "--config", file.toString(), "--port", "0", "--http-port", "-1", "--discovery-port", "-1");
        assertOneLine(
                outcome,
                UsageErrorLine.EXIT_USAGE,
                "traverse hub: " + file + ": unknown keys [traverse.hub.prot]",
                "traverse hub --help");
    }

    @Test
    void anUnknownOptionIsOneUsageLineNotTheWholeUsage() {
        Outcome outcome = run("forward", "0", "db:5432", "--hubb", "127.0.0.1:1");
        assertOneLine(
                outcome,
                UsageErrorLine.EXIT_USAGE,
                "traverse forward: ",
                "--hubb",
                "traverse forward --help lists the options");
        assertThat(run("forward", "--help").out()).contains("Usage: traverse forward");
    }
}
