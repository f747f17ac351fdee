package io.traverse.cli.demo;

import com.jcraft.jsch.JSch;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.Session;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The demo's own OpenSSH sshd, for the node that only SSH reaches: run as the current user on a
 * free port of 127.0.0.1, with a host key, a client key, authorized_keys and a known_hosts file
 * made for this run in a temporary directory, public-key login only, TCP forwarding allowed. As
 * another user than root, sshd can let in only that user, which is the one the demo logs in as.
 * {@link #close()} stops it (with the per-connection processes it forked) and deletes the
 * directory; so does a shutdown hook if the JVM ends first (Ctrl-C).
 */
final class DemoSshd implements AutoCloseable {
    static final Path SSHD = Path.of("/usr/sbin/sshd");
    static final Path SSH_KEYGEN = Path.of("/usr/bin/ssh-keygen");
    private static final long START_MILLIS = 5_000;

    private final Path dir;
    private final Process process;
    private final int port;
    private final String user;
    private final Thread cleanUp;
    private final StringBuilder output = new StringBuilder();

    private DemoSshd(Path dir, Process process, int port, String user) {
        this.dir = dir;
        this.process = process;
        this.port = port;
        this.user = user;
        this.cleanUp = new Thread(this::stop, "demo-sshd-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanUp);
        Thread reader = new Thread(this::keepOutput, "demo-sshd-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Why the demo cannot run its own sshd here, or empty if it can try. */
    static Optional<String> missing() {
        if (!Files.isExecutable(SSHD)) {
            return Optional.of(SSHD + " is not installed (Debian: openssh-server)");
        }
        if (!Files.isExecutable(SSH_KEYGEN)) {
            return Optional.of(SSH_KEYGEN + " is not installed (Debian: openssh-client)");
        }
        return Optional.empty();
    }

    /**
     * Makes the keys and configuration, starts sshd, waits until it answers, and logs in once
     * (as the nodes will) so that a refusal is found here and not as failed pairs.
     *
     * @throws IOException saying why, with sshd's own output
     */
    static DemoSshd start() throws IOException {
        Path dir = Files.createTempDirectory("traverse-demo-sshd-");
        Process process = null;
        try {
            Process hostKey = keygen(
                    "-t",
                    "ed25519",
                    "-N",
                    "",
                    "-C",
                    "traverse-demo-host",
                    "-f",
                    dir.resolve("host_ed25519").toString());
            // Ed25519 (OpenSSH's own key format, which JSch reads on Java 15+): made in milliseconds, where RSA takes a
            // while.
            Process clientKey = keygen(
                    "-t",
                    "ed25519",
                    "-N",
                    "",
                    "-C",
                    "traverse-demo",
                    "-f",
                    dir.resolve("client_ed25519").toString());
            finish(hostKey, "host key");
            finish(clientKey, "client key");
            Files.copy(dir.resolve("client_ed25519.pub"), dir.resolve("authorized_keys"));
            int port = freePort();
            Files.writeString(
                    dir.resolve("sshd_config"),
                    String.join(
                            "\n",
                            "Port " + port,
                            "ListenAddress 127.0.0.1",
                            "HostKey " + dir.resolve("host_ed25519"),
                            "PidFile none",
                            "UsePAM no",
                            "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                            "StrictModes no", // the temporary directory's parents (/tmp) are writable by all
                            "PubkeyAuthentication yes",
                            "PasswordAuthentication no",
                            "KbdInteractiveAuthentication no",
                            "PermitRootLogin prohibit-password",
                            "AllowTcpForwarding yes",
                            "X11Forwarding no",
                            "MaxStartups 30",
                            "LogLevel ERROR",
                            ""));
            Files.writeString(
                    dir.resolve("known_hosts"),
                    "[127.0.0.1]:" + port + " "
                            + Files.readString(dir.resolve("host_ed25519.pub")).trim() + "\n");
            if (isRoot()) {
                Files.createDirectories(Path.of("/run/sshd")); // sshd as root wants its privilege separation directory
            }
            process = new ProcessBuilder(
                            SSHD.toString(),
                            "-D",
                            "-e",
                            "-f",
                            dir.resolve("sshd_config").toString())
                    .redirectErrorStream(true)
                    .start();
            DemoSshd sshd = new DemoSshd(dir, process, port, System.getProperty("user.name"));
            try {
                sshd.awaitListening();
                sshd.logInOnce();
            } catch (IOException | RuntimeException e) {
                sshd.close();
                throw e;
            }
            return sshd;
        } catch (IOException | RuntimeException e) {
            if (process != null) {
                process.destroyForcibly();
            }
            deleteTree(dir);
            throw e;
        }
    }

    /** A {@code traverse.ssh.tunnels} rule: {@code network} reached through this sshd, its host key checked. */
    String tunnelRule(String network) {
        return network + " user=" + user + " key=" + dir.resolve("client_ed25519") + " gateway=127.0.0.1:" + port
                + " known-hosts=" + dir.resolve("known_hosts");
    }

    int port() {
        return port;
    }

    String user() {
        return user;
    }

    private static boolean isRoot() {
        try {
            Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            return Integer.valueOf(0).equals(uid);
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private static Process keygen(String... args) throws IOException {
        List<String> argv = new ArrayList<>(List.of(SSH_KEYGEN.toString(), "-q"));
        argv.addAll(List.of(args));
        return new ProcessBuilder(argv).redirectErrorStream(true).start();
    }

    private static void finish(Process keygen, String what) throws IOException {
        try {
            String out = new String(keygen.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!keygen.waitFor(30, TimeUnit.SECONDS) || keygen.exitValue() != 0) {
                keygen.destroyForcibly();
                throw new IOException("ssh-keygen could not make the " + what + ": " + out);
            }
        } catch (InterruptedException e) {
            keygen.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted making the " + what);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress("127.0.0.1", 0));
            return probe.getLocalPort();
        }
    }

    private void awaitListening() throws IOException {
        long giveUp = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_MILLIS);
        while (System.nanoTime() < giveUp) {
            if (!process.isAlive()) {
                throw new IOException("sshd ended at once: " + output());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                s.setSoTimeout(1_000);
                byte[] banner = s.getInputStream().readNBytes(4);
                if (new String(banner, StandardCharsets.US_ASCII).equals("SSH-")) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted waiting for sshd");
            }
        }
        throw new IOException(
                "sshd did not answer on 127.0.0.1:" + port + " within " + START_MILLIS + " ms: " + output());
    }

    private void logInOnce() throws IOException {
        try {
            JSch jsch = new JSch();
            jsch.setKnownHosts(dir.resolve("known_hosts").toString());
            jsch.addIdentity(dir.resolve("client_ed25519").toString());
            Session session = jsch.getSession(user, "127.0.0.1", port);
            session.setConfig("StrictHostKeyChecking", "yes");
            session.setConfig("PreferredAuthentications", "publickey");
            session.connect(10_000);
            session.disconnect();
        } catch (JSchException e) {
            throw new IOException("sshd did not let " + user + " in: " + e.getMessage() + " " + output());
        }
    }

    private void keepOutput() {
        try (InputStream in = process.getInputStream()) {
            byte[] buffer = new byte[1024];
            int n;
            while ((n = in.read(buffer)) > 0) {
                synchronized (output) {
                    if (output.length() < 4096) {
                        output.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                    }
                }
            }
        } catch (IOException ended) {
            // sshd stopped
        }
    }

    private String output() {
        synchronized (output) {
            return output.length() == 0
                    ? "(no output)"
                    : "(sshd said: " + output.toString().trim() + ")";
        }
    }

    @Override
    public void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanUp);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    private void stop() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroy();
        try {
            if (!process.waitFor(2, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        deleteTree(dir);
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // already gone
        }
    }
}
