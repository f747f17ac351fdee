package io.traverse.testbed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real daemon that a part of the testbed runs in a namespace (tinyproxy, dnsmasq): its
 * configuration, output and log in a temporary directory of its own, awaited until it listens on
 * its port, stopped and its directory removed when closed.
 */
final class NamespaceDaemon implements AutoCloseable {
    /** Which sockets {@code ss} lists for a daemon: listening TCP or UDP. */
    enum Listens {
        TCP("-Hltn"),
        UDP("-Hlun");

        final String ssFlags;

        Listens(String ssFlags) {
            this.ssFlags = ssFlags;
        }
    }

    private final NetworkNamespace namespace;
    private final String name;
    private final Path directory;
    private final List<String> argv;
    private final Listens listens;
    private final int port;
    private final String logFile;
    private volatile Process process;

    /**
     * @param directory from {@link #newDirectory}, with the daemon's configuration written to it
     * @param logFile   the daemon's own log in {@code directory}, read by {@link #log()}
     */
    NamespaceDaemon(
            NetworkNamespace namespace,
            String name,
            Path directory,
            List<String> argv,
            Listens listens,
            int port,
            String logFile) {
        this.namespace = namespace;
        this.name = name;
        this.directory = directory;
        this.argv = List.copyOf(argv);
        this.listens = listens;
        this.port = port;
        this.logFile = logFile;
    }

    /** A fresh temporary directory for a daemon's files. */
    static Path newDirectory(String name) {
        try {
            return Files.createTempDirectory("tvb-" + name);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make a directory for " + name, e);
        }
    }

    Path directory() {
        return directory;
    }

    /** Starts it and returns once it listens (5 s at most); the testbed stops it when it closes. */
    void start() {
        process = namespace.start(new ProcessBuilder(argv)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        directory.resolve(name + ".out").toFile())));
        awaitListening();
    }

    /** Kills it (SIGKILL: every connection through it ends at once, as in a crash) and starts it again. */
    void restart() {
        Process old = process;
        old.destroyForcibly();
        try {
            if (!old.waitFor(5, TimeUnit.SECONDS)) {
                throw new TestbedException(name + " did not die within 5 s of SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TestbedException("interrupted restarting " + name, e);
        }
        start();
    }

    private void awaitListening() {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new TestbedException(name + " exited at once: " + output());
            }
            String listening = namespace
                    .execAllowingFailure(
                            Duration.ofSeconds(5), null, List.of("ss", listens.ssFlags, "sport = :" + port))
                    .stdout();
            if (!listening.isBlank()) {
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TestbedException("interrupted waiting for " + name, e);
            }
        }
        throw new TestbedException(name + " does not listen on port " + port + " after 5 s: " + output());
    }

    /** The daemon's own log so far. */
    String log() {
        try {
            Path log = directory.resolve(logFile);
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(cannot read " + name + "'s log: " + e + ")";
        }
    }

    private String output() {
        try {
            return Files.readString(directory.resolve(name + ".out")) + log();
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Override
    public void close() {
        Process p = process;
        if (p != null) {
            p.destroy();
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try (var files = Files.list(directory)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            // A temporary directory left behind is not worth failing a test for.
        }
    }

    @Override
    public String toString() {
        return name + " in " + namespace;
    }
}
