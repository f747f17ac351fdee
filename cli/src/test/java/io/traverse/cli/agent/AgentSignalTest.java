package io.traverse.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SIGHUP reaches the agent's reload: an agent in its own JVM, signalled with kill -HUP. */
class AgentSignalTest {
    @TempDir
    Path dir;

    @Test
    void sighupReloadsTheFileAndTheAddedForwardListens() throws Exception {
        ServerSocket echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        int added = freePort();
        Path file = dir.resolve("agent.conf");
        String node = "traverse.discovery = false\ntraverse.bind = 127.0.0.1\n";
        Files.writeString(file, node + "forward first 0 127.0.0.1:" + echo.getLocalPort() + "\n");
        List<String> lines = new CopyOnWriteArrayList<>();
        Process agent = startAgent(file, lines);
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> lines.stream().anyMatch(l -> l.startsWith("agent: 1 services")));
            assertThat(lines).anyMatch(l -> l.contains("SIGHUP reloads the file"));
            assertThat(canConnect(added)).isFalse();

            Files.writeString(
                    file,
                    node + "forward first 0 127.0.0.1:" + echo.getLocalPort() + "\n" + "forward second " + added
                            + " 127.0.0.1:" + echo.getLocalPort() + "\n");
            Process kill = new ProcessBuilder("kill", "-HUP", String.valueOf(agent.pid()))
                    .inheritIO()
                    .start();
            assertThat(kill.waitFor()).isZero();
            try {
                await().atMost(Duration.ofSeconds(20)).until(() -> canConnect(added));
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError(
                        "the added forward did not listen within 20 s of SIGHUP; the agent said: " + lines, e);
            }
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> lines.stream()
                            .anyMatch(l -> l.contains(
                                    "Reloaded " + file + ": 1 started, 0 stopped, 0 restarted, 0 failed, 2 running")));
            assertThat(agent.isAlive()).as("SIGHUP no longer ends the JVM").isTrue();
        } finally {
            agent.destroy();
            agent.waitFor(20, TimeUnit.SECONDS);
            agent.destroyForcibly();
            echo.close();
        }
    }

    /** Under nohup SIGHUP is ignored, and the JVM keeps it so: the agent must say it cannot reload, not claim it can. */
    @Test
    void underNohupTheAgentSaysSighupCannotReload() throws Exception {
        ServerSocket echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Path file = dir.resolve("agent.conf");
        Files.writeString(
                file,
                "traverse.discovery = false\ntraverse.bind = 127.0.0.1\nforward first 0 127.0.0.1:"
                        + echo.getLocalPort() + "\n");
        List<String> lines = new CopyOnWriteArrayList<>();
        Process agent = startAgent(file, lines, "nohup");
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> lines.stream().anyMatch(l -> l.startsWith("agent: 1 services")));
            assertThat(lines).anyMatch(l -> l.contains("SIGHUP is ignored in this process"));
            assertThat(lines).noneMatch(l -> l.contains("SIGHUP reloads the file"));
        } finally {
            agent.destroy();
            agent.waitFor(20, TimeUnit.SECONDS);
            agent.destroyForcibly();
            echo.close();
        }
    }

    /** Starts {@code traverse agent --config file} in a JVM of its own (after {@code prefix}, e.g. nohup); its output lines go to {@code lines}. */
    private static Process startAgent(Path file, List<String> lines, String... prefix) throws IOException {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new java.util.ArrayList<>(List.of(prefix));
        command.addAll(List.of(
                java.toString(),
                "-cp",
                classPath,
                "io.traverse.cli.TraverseCommand",
                "agent",
                "--config",
                file.toString()));
        Process agent = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread reader = new Thread(() -> {
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(agent.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (IOException e) {
                // the process ended
            }
        });
        reader.setDaemon(true);
        reader.start();
        return agent;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static boolean canConnect(int port) {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
