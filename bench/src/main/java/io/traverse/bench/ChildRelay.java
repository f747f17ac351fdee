package io.traverse.bench;

import java.io.Closeable;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A TCP relay from a free loopback port to a target port, as a child process (so it inherits the
 * benchmark's CPU pinning): {@code socat}, the reference relay of the relay targets, or the minimal C relay
 * {@code bench/native/epoll-relay.c}, the floor any relay process can reach on this machine.
 */
final class ChildRelay implements Closeable {
    /** Where {@code bench/run-routed.sh} compiles the C relay (relative to the repository root). */
    static final Path EPOLL_RELAY = Path.of(System.getProperty("bench.epollRelay", "bench/target/epoll-relay"));

    private final Process process;
    private final int port;

    private ChildRelay(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** {@code socat} relaying one connection to 127.0.0.1:{@code targetPort}, listening once this returns. */
    static ChildRelay socat(int targetPort) throws IOException {
        int port = freePort();
        return start(
                List.of(
                        "socat",
                        "TCP-LISTEN:" + port + ",bind=127.0.0.1,reuseaddr,nodelay",
                        "TCP:127.0.0.1:" + targetPort + ",nodelay"),
                port,
                "is socat installed?");
    }

    /** The C relay relaying one connection to 127.0.0.1:{@code targetPort}, listening once this returns. */
    static ChildRelay epoll(int targetPort) throws IOException {
        if (!Files.isExecutable(EPOLL_RELAY)) {
            throw new IOException(EPOLL_RELAY + " is missing; build it with gcc -O2 -o " + EPOLL_RELAY
                    + " bench/native/epoll-relay.c");
        }
        int port = freePort();
        return start(
                List.of(EPOLL_RELAY.toString(), Integer.toString(port), Integer.toString(targetPort)),
                port,
                "see its stderr");
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket(0, 1, Loopback.LOOPBACK)) {
            return probe.getLocalPort();
        }
    }

    private static ChildRelay start(List<String> command, int port, String hint) throws IOException {
        Process process = new ProcessBuilder(new ArrayList<>(command))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        ChildRelay relay = new ChildRelay(process, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!relay.listens()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                relay.close();
                throw new IOException(command.get(0) + " did not start listening on port " + port + " (" + hint + ")");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                relay.close();
                throw new IOException("interrupted while starting " + command.get(0));
            }
        }
        return relay;
    }

    /** True once the relay's port is open (probed with /proc/net/tcp, not by connecting: a relay serves one connection). */
    private boolean listens() throws IOException {
        String hexPort = String.format(":%04X ", port);
        for (String line : Files.readAllLines(Path.of("/proc/net/tcp"))) {
            String[] f = line.trim().split("\\s+");
            if (f.length > 3 && (f[1] + " ").endsWith(hexPort) && f[3].equals("0A")) {
                return true;
            }
        }
        return false;
    }

    int port() {
        return port;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
