package io.traverse.bench;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP proxy as a child process: Debian's tinyproxy on 127.0.0.1 with a private
 * configuration (CONNECT to any port), for the routed-over-CONNECT contender. It inherits the
 * benchmark's CPU affinity like the hubs do.
 */
final class ChildHttpProxy implements Closeable {
    static final Path TINYPROXY = Path.of("/usr/bin/tinyproxy");
    private final Process process;
    private final Path directory;
    private final int port;

    ChildHttpProxy() throws IOException {
        if (!Files.isExecutable(TINYPROXY)) {
            throw new IOException(TINYPROXY + " is missing (Debian package tinyproxy-bin)");
        }
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        directory = Files.createTempDirectory("bench-tinyproxy");
        Path conf = Files.writeString(directory.resolve("tinyproxy.conf"), "Port " + port + "\nListen 127.0.0.1\nTimeout 600\n"
                + "MaxClients 100\nLogLevel Warning\nLogFile \"" + directory.resolve("tinyproxy.log") + "\"\n");
        process = new ProcessBuilder(TINYPROXY.toString(), "-d", "-c", conf.toString()).redirectErrorStream(true)
                .redirectOutput(directory.resolve("out").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    close();
                    throw new IOException("tinyproxy did not start on port " + port, e);
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    close();
                    throw new IOException("interrupted");
                }
            }
        }
    }

    /** {@code traverse.http.proxy} for a node that goes through it. */
    String authority() {
        return "127.0.0.1:" + port;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var files = Files.list(directory)) {
            for (Path p : files.toList()) {
                Files.deleteIfExists(p);
            }
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            // a temporary directory left behind
        }
    }
}
