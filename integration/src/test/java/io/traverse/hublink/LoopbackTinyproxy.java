package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A real HTTP proxy for tests: Debian's tinyproxy on 127.0.0.1 with a private configuration, in
 * the foreground, stopped by {@link #close()}. Not installed: the test is skipped where that is
 * allowed (not root, no {@code CI} variable) and fails elsewhere, because CI installs it.
 */
final class LoopbackTinyproxy implements AutoCloseable {
    private static final List<Path> BINARIES = List.of(Path.of("/usr/bin/tinyproxy"), Path.of("/usr/sbin/tinyproxy"));
    private final Process process;
    private final Path directory;
    private final int port;

    private LoopbackTinyproxy(Process process, Path directory, int port) {
        this.process = process;
        this.directory = directory;
        this.port = port;
    }

    /**
     * Starts tinyproxy with the given extra configuration lines (such as {@code ConnectPort 443}
     * or {@code BasicAuth user password}); returns once it accepts connections.
     */
    static LoopbackTinyproxy start(String... extraLines) throws Exception {
        Path binary = BINARIES.stream().filter(Files::isExecutable).findFirst().orElse(null);
        if (binary == null) {
            boolean mustRun = System.getenv("CI") != null || "root".equals(System.getProperty("user.name"));
            Assumptions.assumeTrue(
                    mustRun, "Skipped: tinyproxy is not installed (Debian package tinyproxy-bin; CI installs it)");
            throw new AssertionError(
                    "tinyproxy is not installed (Debian package tinyproxy-bin): the HTTP proxy tests must run here");
        }
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            Path directory = Files.createTempDirectory("tinyproxy");
            Path conf = directory.resolve("tinyproxy.conf");
            StringBuilder text = new StringBuilder()
                    .append("Port ")
                    .append(port)
                    .append('\n')
                    .append("Listen 127.0.0.1\nTimeout 600\nMaxClients 200\nLogLevel Connect\n")
                    .append("LogFile \"")
                    .append(directory.resolve("tinyproxy.log"))
                    .append("\"\n");
            for (String line : extraLines) {
                text.append(line).append('\n');
            }
            Files.writeString(conf, text);
            Process process = new ProcessBuilder(binary.toString(), "-d", "-c", conf.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve("tinyproxy.out").toFile())
                    .start();
            LoopbackTinyproxy proxy = new LoopbackTinyproxy(process, directory, port);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < deadline && process.isAlive()) {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                    return proxy;
                } catch (IOException e) {
                    last = e;
                    Thread.sleep(20);
                }
            }
            proxy.close(); // the port was taken meanwhile, or it did not start: try another
        }
        throw new IOException("tinyproxy did not start", last);
    }

    int port() {
        return port;
    }

    String authority() {
        return "127.0.0.1:" + port;
    }

    /** The CONNECT requests tinyproxy logged so far. */
    long connectRequests() throws IOException {
        Path log = directory.resolve("tinyproxy.log");
        return Files.exists(log)
                ? Files.readAllLines(log).stream()
                        .filter(l -> l.contains(": CONNECT "))
                        .count()
                : 0;
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
        try (var files = Files.list(directory)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
        }
        Files.deleteIfExists(directory);
        assertThat(process.isAlive()).as("tinyproxy stopped").isFalse();
    }
}
