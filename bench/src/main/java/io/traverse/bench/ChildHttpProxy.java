package io.traverse.bench;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real HTTP proxy as a child process on 127.0.0.1 with a private configuration that allows
 * CONNECT to any port, for the routed-over-CONNECT contenders: Debian's tinyproxy, or Debian's
 * squid (no cache, no logs outside its temporary directory). It inherits the benchmark's CPU
 * affinity like the hubs do, unless the environment variable {@code PROXY_CPU} names other CPUs
 * for it ({@code taskset -c} syntax): a proxy on a machine of its own, as at a real site.
 */
final class ChildHttpProxy implements Closeable {
    /** Which proxy program. */
    enum Kind {
        TINYPROXY(Path.of("/usr/bin/tinyproxy"), "tinyproxy-bin"),
        SQUID(Path.of("/usr/sbin/squid"), "squid");

        final Path binary;
        final String debianPackage;

        Kind(Path binary, String debianPackage) {
            this.binary = binary;
            this.debianPackage = debianPackage;
        }
    }

    private final Kind kind;
    private final Process process;
    private final Path directory;
    private final int port;

    ChildHttpProxy() throws IOException {
        this(Kind.TINYPROXY);
    }

    ChildHttpProxy(Kind kind) throws IOException {
        this.kind = kind;
        if (!Files.isExecutable(kind.binary)) {
            throw new IOException(kind.binary + " is missing (Debian package " + kind.debianPackage + ")");
        }
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        directory = Files.createTempDirectory("bench-" + kind.name().toLowerCase(java.util.Locale.ROOT));
        List<String> command;
        if (kind == Kind.SQUID) {
            // squid started as root drops to its own user, which must be able to write its log here.
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
            Path conf = Files.writeString(directory.resolve("squid.conf"), squidConfiguration(port, directory));
            command = List.of(kind.binary.toString(), "-N", "-f", conf.toString());
        } else {
            Path conf = Files.writeString(
                    directory.resolve("tinyproxy.conf"),
                    "Port " + port + "\nListen 127.0.0.1\nTimeout 600\n"
                            + "MaxClients 100\nLogLevel Warning\nLogFile \"" + directory.resolve("tinyproxy.log")
                            + "\"\n");
            command = List.of(kind.binary.toString(), "-d", "-c", conf.toString());
        }
        String proxyCpus = System.getenv("PROXY_CPU");
        if (proxyCpus != null && !proxyCpus.isBlank()) { // a core of its own, as a proxy on another machine would have
            command = new java.util.ArrayList<>(command);
            command.addAll(0, List.of("taskset", "-c", proxyCpus.strip()));
        }
        process = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("out").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            } catch (IOException e) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    close();
                    throw new IOException(kind.binary.getFileName() + " did not start on port " + port, e);
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

    /** A squid that only tunnels: CONNECT to any port from loopback, nothing cached, logs and pid file in {@code directory}. */
    static String squidConfiguration(int port, Path directory) {
        return "http_port 127.0.0.1:" + port + "\n"
                + "acl CONNECT method CONNECT\n"
                + "http_access allow CONNECT\n"
                + "http_access deny all\n"
                + "cache deny all\n"
                + "cache_mem 0 MB\n"
                + "access_log none\n"
                + "cache_store_log none\n"
                + "cache_log " + directory.resolve("cache.log") + "\n"
                + "pid_filename " + directory.resolve("squid.pid") + "\n"
                + "coredump_dir " + directory + "\n"
                + "pinger_enable off\n"
                + "shutdown_lifetime 0 seconds\n";
    }

    /** A plain TCP connection to {@code target} through the proxy's CONNECT tunnel, ready for data. */
    Socket tunnelTo(InetSocketAddress target) throws IOException {
        Socket client = Loopback.tune(new Socket(java.net.Proxy.NO_PROXY));
        try {
            client.connect(new InetSocketAddress(Loopback.LOOPBACK, port));
            String authority = target.getAddress().getHostAddress() + ":" + target.getPort();
            client.getOutputStream()
                    .write(("CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n\r\n")
                            .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            StringBuilder answer = new StringBuilder();
            while (!answer.toString().endsWith("\r\n\r\n")) {
                int b = client.getInputStream().read();
                if (b < 0) {
                    throw new IOException(kind + " closed the tunnel: " + answer);
                }
                answer.append((char) b);
            }
            if (!answer.toString().split(" ")[1].startsWith("2")) {
                throw new IOException(kind + " refused CONNECT: " + answer);
            }
            return client;
        } catch (IOException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** The CPU time the proxy process has used so far (user and system, from /proc). */
    java.time.Duration cpuTime() {
        return process.toHandle()
                .info()
                .totalCpuDuration()
                .orElseThrow(
                        () -> new IllegalStateException("no CPU time for " + kind + " (pid " + process.pid() + ")"));
    }

    /** {@code traverse.http.proxy} for a node that goes through it. */
    String authority() {
        return "127.0.0.1:" + port;
    }

    Kind kind() {
        return kind;
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
