package io.traverse.bench;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

/** A {@code socat} TCP relay from a free loopback port to a target port, as a child process. */
final class SocatRelay implements Closeable {
    private final Process process;
    private final int port;

    private SocatRelay(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts {@code socat} relaying one connection to 127.0.0.1:{@code targetPort} and waits until it listens. */
    static SocatRelay start(int targetPort) throws IOException {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, Loopback.LOOPBACK)) {
            port = probe.getLocalPort();
        }
        Process process = new ProcessBuilder("socat", "TCP-LISTEN:" + port + ",bind=127.0.0.1,reuseaddr,nodelay",
                "TCP:127.0.0.1:" + targetPort + ",nodelay").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        SocatRelay relay = new SocatRelay(process, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!relay.listens()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                relay.close();
                throw new IOException("socat did not start listening on port " + port + " (is socat installed?)");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                relay.close();
                throw new IOException("interrupted while starting socat");
            }
        }
        return relay;
    }

    /** True once socat's port is open (probed with /proc/net/tcp, not by connecting: socat serves one connection). */
    private boolean listens() throws IOException {
        String hexPort = String.format(":%04X ", port);
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/net/tcp"))) {
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
