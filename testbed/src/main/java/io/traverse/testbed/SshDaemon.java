package io.traverse.testbed;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real OpenSSH sshd ({@value #SSHD}) in a host's namespace, with a private configuration made
 * for one test in a temporary directory: its own ed25519 host key, a passphrase-protected RSA key
 * for the client (PEM, which JSch reads) in {@code authorized_keys}, public-key login only, TCP
 * forwarding allowed, no PAM. The testbed stops it (and the per-connection processes it forked) and
 * deletes the directory when it closes, also after a failure.
 */
public final class SshDaemon implements AutoCloseable {
    public static final String SSHD = "/usr/sbin/sshd";
    public static final int PORT = 22;
    /** The client key's passphrase (any text without spaces; the rule syntax splits on them). */
    public static final String PASSPHRASE = "testbed-ssh-passphrase";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);

    private final Host host;
    private final Path dir;
    private final Process process;
    private final Deque<String> log = new ArrayDeque<>();

    private SshDaemon(Host host, Path dir, Process process) {
        this.host = host;
        this.dir = dir;
        this.process = process;
    }

    /** Whether this machine has OpenSSH's server and ssh-keygen. */
    public static boolean available() {
        return Files.isExecutable(Path.of(SSHD)) && Files.isExecutable(Path.of("/usr/bin/ssh-keygen"));
    }

    /** Generates keys and configuration, starts sshd on port 22 of {@code host}, and waits until it listens. */
    public static SshDaemon startOn(Host host) {
        Path dir;
        try {
            dir = Files.createTempDirectory("tvb-sshd-");
        } catch (IOException e) {
            throw new TestbedException("cannot make a directory for sshd: " + e.getMessage(), e);
        }
        try {
            keygen(
                    "-t",
                    "ed25519",
                    "-N",
                    "",
                    "-C",
                    "tvb-host",
                    "-f",
                    dir.resolve("host_ed25519").toString());
            keygen(
                    "-t",
                    "rsa",
                    "-b",
                    "2048",
                    "-m",
                    "PEM",
                    "-N",
                    PASSPHRASE,
                    "-C",
                    "tvb-client",
                    "-f",
                    dir.resolve("client_rsa").toString());
            Files.copy(dir.resolve("client_rsa.pub"), dir.resolve("authorized_keys"));
            Files.writeString(
                    dir.resolve("sshd_config"),
                    String.join(
                            "\n",
                            "Port " + PORT,
                            "ListenAddress 0.0.0.0",
                            "HostKey " + dir.resolve("host_ed25519"),
                            "PidFile none",
                            "UsePAM no",
                            "AuthorizedKeysFile " + dir.resolve("authorized_keys"),
                            "StrictModes no",
                            "PubkeyAuthentication yes",
                            "PasswordAuthentication no",
                            "KbdInteractiveAuthentication no",
                            "PermitRootLogin prohibit-password",
                            "AllowTcpForwarding yes",
                            "X11Forwarding no",
                            "LogLevel VERBOSE",
                            ""));
            // sshd refuses to start without its privilege separation directory (Debian makes it at boot).
            Files.createDirectories(Path.of("/run/sshd"));
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            throw e instanceof TestbedException t
                    ? t
                    : new TestbedException("cannot prepare sshd: " + e.getMessage(), e);
        }
        Process process = host.namespace()
                .start(new ProcessBuilder(
                                SSHD,
                                "-D",
                                "-e",
                                "-f",
                                dir.resolve("sshd_config").toString())
                        .redirectErrorStream(true));
        SshDaemon daemon = new SshDaemon(host, dir, process);
        host.namespace().testbed().track(daemon);
        daemon.awaitListening();
        return daemon;
    }

    private static void keygen(String... args) {
        List<String> argv = new java.util.ArrayList<>(List.of("ssh-keygen", "-q"));
        argv.addAll(List.of(args));
        HostCommand.run(argv, null, Duration.ofSeconds(30));
    }

    private void awaitListening() {
        CountDownLatch listening = new CountDownLatch(1);
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        String line;
                        while ((line = in.readLine()) != null) {
                            synchronized (log) {
                                log.addLast(line);
                                if (log.size() > 200) {
                                    log.removeFirst();
                                }
                            }
                            if (line.contains("Server listening on 0.0.0.0 port " + PORT)) {
                                listening.countDown();
                            }
                        }
                    } catch (IOException ignored) {
                        // the daemon stopped
                    }
                },
                "sshd-log-" + host.label());
        reader.setDaemon(true);
        reader.start();
        try {
            if (!listening.await(START_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new TestbedException(
                        "sshd on " + host + " did not start listening within " + START_TIMEOUT + ":\n" + recentLog());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TestbedException("interrupted while waiting for sshd on " + host, e);
        }
    }

    public Host host() {
        return host;
    }

    /** The client's private key (RSA, PEM, encrypted with {@link #PASSPHRASE}). */
    public Path clientKey() {
        return dir.resolve("client_rsa");
    }

    /** The host key's public line, {@code ssh-ed25519 AAAA... comment}. */
    public String hostPublicKey() {
        try {
            return Files.readString(dir.resolve("host_ed25519.pub")).trim();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The SHA256 fingerprint of the host key, as {@code ssh-keygen -lf} prints it. */
    public String hostKeyFingerprint() {
        CommandResult r = HostCommand.run(
                List.of("ssh-keygen", "-lf", dir.resolve("host_ed25519.pub").toString()), null, Duration.ofSeconds(10));
        return r.stdout().trim().split("\\s+")[1];
    }

    /** Writes a known_hosts file that lists this daemon's host key under {@code name} (how clients reach it, port 22). */
    public Path knownHostsAs(String name) {
        return writeKnownHosts("known_hosts-" + name, name + " " + hostPublicKey() + "\n");
    }

    /** Writes a known_hosts file with a freshly made key of the same type under {@code name}: a changed host key. */
    public Path staleKnownHostsAs(String name) {
        Path other = dir.resolve("other_ed25519");
        if (!Files.exists(other)) {
            keygen("-t", "ed25519", "-N", "", "-C", "tvb-other", "-f", other.toString());
        }
        try {
            return writeKnownHosts(
                    "known_hosts-stale-" + name,
                    name + " "
                            + Files.readString(dir.resolve("other_ed25519.pub")).trim() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Path writeKnownHosts(String fileName, String content) {
        try {
            Path file = dir.resolve(fileName);
            Files.writeString(file, content);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A {@code traverse.ssh.tunnels} rule: {@code network} reached through this sshd, logged in as
     * root with the client key, host key checked against {@code knownHosts}; gateway null means
     * the target address itself.
     */
    public String tunnelRule(String network, String gateway, Path knownHosts) {
        return network + " user=root key=" + clientKey() + " passphrase=" + PASSPHRASE + " known-hosts=" + knownHosts
                + (gateway == null ? "" : " gateway=" + gateway);
    }

    public String recentLog() {
        synchronized (log) {
            return String.join("\n", log);
        }
    }

    /** Stops sshd and the per-connection processes it forked, then deletes its directory. */
    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        NetworkNamespace.stop(process);
        deleteTree(dir);
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // already gone
        }
    }

    @Override
    public String toString() {
        return "sshd on " + host;
    }
}
