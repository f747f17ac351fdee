package io.traverse.cli.pipe;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server for tests: Debian's PostgreSQL 15 from {@code /usr/lib/postgresql/15/bin},
 * a fresh cluster in a temporary directory, listening on 127.0.0.1 on a free port with {@code ssl=on}
 * and a self-signed certificate made by the openssl command. Its {@code pg_hba.conf} admits the test
 * user only over TCP with TLS ({@code hostssl}, SCRAM password), so a session it serves is a TLS one.
 *
 * <p>PostgreSQL refuses to run as root: as root, initdb, the server and pg_ctl run as {@code nobody}
 * (through {@code setpriv}), and the directory is theirs. {@link #close()} stops the server (pg_ctl's
 * fast shutdown, then a kill if it has not gone within its bound) and removes the directory; a
 * shutdown hook does the same if the JVM ends first. Not installed: the test is skipped on a
 * developer's machine and fails where {@code CI} is set and not {@code false}, because CI installs it.
 */
final class LoopbackPostgres implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LoopbackPostgres.class);
    private static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");
    private static final Path OPENSSL = Path.of("/usr/bin/openssl");
    private static final List<String> TOOLS = List.of("initdb", "postgres", "pg_ctl", "pg_isready");
    private static final String SERVER_USER = "nobody";
    private static final String SERVER_GROUP = "nogroup";
    /** The bootstrap superuser, and the only role pg_hba.conf admits. */
    static final String USER = "tester";

    private final Path directory;
    private final List<String> asServerUser;
    private final String password;
    private final Thread shutdownHook;
    private Process server;
    private int port;

    private LoopbackPostgres(Path directory, List<String> asServerUser, String password) {
        this.directory = directory;
        this.asServerUser = asServerUser;
        this.password = password;
        this.shutdownHook = new Thread(this::stopAndRemove, "loopback-postgres-stop");
    }

    /** Makes the cluster and starts the server; returns once it accepts connections. */
    static LoopbackPostgres start() throws Exception {
        boolean installed =
                TOOLS.stream().allMatch(t -> Files.isExecutable(BIN.resolve(t))) && Files.isExecutable(OPENSSL);
        String ci = System.getenv("CI");
        if (!installed && ci != null && !ci.equals("false")) {
            Assertions.fail("CI=" + ci + " but PostgreSQL 15 (" + BIN + ": " + String.join(", ", TOOLS) + ") or "
                    + OPENSSL + " is missing: .ci/run installs postgresql-15");
        }
        Assumptions.assumeTrue(
                installed, "skipped: PostgreSQL 15 is not installed (apt-get install postgresql-15; CI installs it)");

        boolean root = "root".equals(System.getProperty("user.name"));
        List<String> prefix = root
                ? List.of("setpriv", "--reuid=" + SERVER_USER, "--regid=" + SERVER_GROUP, "--clear-groups", "--")
                : List.of();
        Path directory = Files.createTempDirectory("traverse-pg");
        byte[] secret = new byte[18];
        new SecureRandom().nextBytes(secret);
        LoopbackPostgres postgres =
                new LoopbackPostgres(directory, prefix, HexFormat.of().formatHex(secret));
        Runtime.getRuntime().addShutdownHook(postgres.shutdownHook);
        try {
            postgres.makeCluster(root);
            postgres.startServer();
            return postgres;
        } catch (Throwable e) {
            postgres.close();
            throw e;
        }
    }

    int port() {
        return port;
    }

    String password() {
        return password;
    }

    private void makeCluster(boolean root) throws Exception {
        Path key = directory.resolve("server.key");
        Path certificate = directory.resolve("server.crt");
        run(List.of(
                OPENSSL.toString(),
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                key.toString(),
                "-out",
                certificate.toString(),
                "-days",
                "2",
                "-subj",
                "/CN=traverse-pg-test"));
        Path passwordFile = Files.writeString(directory.resolve("password"), password);
        if (root) {
            try (Stream<Path> files = Files.list(directory)) {
                for (Path p : Stream.concat(Stream.of(directory), files).toList()) {
                    giveToServerUser(p);
                }
            }
        }
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        List<String> initdb = new ArrayList<>(asServerUser);
        initdb.addAll(List.of(
                BIN.resolve("initdb").toString(),
                "-D",
                dataDirectory().toString(),
                "-U",
                USER,
                "--pwfile=" + passwordFile,
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "-E",
                "UTF8",
                "--no-locale",
                "--no-sync"));
        run(initdb);
        Files.delete(passwordFile);
        // Only TLS over TCP from the loopback, for the test user: a session without TLS is refused.
        Files.writeString(
                dataDirectory().resolve("pg_hba.conf"),
                "local all all trust\nhostssl all " + USER + " 127.0.0.1/32 scram-sha-256\n");
    }

    private void startServer() throws Exception {
        String lastLog = "";
        for (int attempt = 0; attempt < 3; attempt++) {
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort();
            }
            Path serverLog = directory.resolve("postgres-" + attempt + ".log");
            List<String> command = new ArrayList<>(asServerUser);
            command.addAll(List.of(
                    BIN.resolve("postgres").toString(),
                    "-D",
                    dataDirectory().toString(),
                    "-c",
                    "listen_addresses=127.0.0.1",
                    "-c",
                    "port=" + port,
                    "-c",
                    "unix_socket_directories=" + directory,
                    "-c",
                    "ssl=on",
                    "-c",
                    "ssl_cert_file=" + directory.resolve("server.crt"),
                    "-c",
                    "ssl_key_file=" + directory.resolve("server.key"),
                    "-c",
                    "max_connections=10",
                    "-c",
                    "shared_buffers=16MB",
                    "-c",
                    "fsync=off",
                    "-c",
                    "full_page_writes=off",
                    "-c",
                    "synchronous_commit=off"));
            ProcessBuilder builder =
                    new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(serverLog.toFile());
            builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
            server = builder.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && server.isAlive()) {
                Process ready = new ProcessBuilder(
                                BIN.resolve("pg_isready").toString(),
                                "-q",
                                "-h",
                                "127.0.0.1",
                                "-p",
                                String.valueOf(port),
                                "-t",
                                "1")
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                if (ready.waitFor(5, TimeUnit.SECONDS) && ready.exitValue() == 0) {
                    log.info("PostgreSQL 15 on 127.0.0.1:{} (ssl=on), data in {}", port, dataDirectory());
                    return;
                }
                ready.destroyForcibly();
                Thread.sleep(100);
            }
            lastLog = Files.readString(serverLog);
            stopServer();
            if (!lastLog.contains("could not bind")) {
                break; // not a port taken between the probe and the bind: trying again would not help
            }
        }
        throw new AssertionError("PostgreSQL did not start; its log:\n" + lastLog);
    }

    private Path dataDirectory() {
        return directory.resolve("data");
    }

    private static void giveToServerUser(Path p) throws IOException {
        UserPrincipalLookupService users = p.getFileSystem().getUserPrincipalLookupService();
        GroupPrincipal group = users.lookupPrincipalByGroupName(SERVER_GROUP);
        PosixFileAttributeView view = Files.getFileAttributeView(p, PosixFileAttributeView.class);
        view.setOwner(users.lookupPrincipalByName(SERVER_USER));
        view.setGroup(group);
    }

    /** Runs a setup command to its end (bounded), failing with its output if it fails. */
    private void run(List<String> command) throws Exception {
        Path output = Files.createTempFile(directory, "command", ".out");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(directory.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith("PG"));
        Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(
                    command.get(asServerUser.size()) + " did not finish within 60 s: " + Files.readString(output));
        }
        if (process.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed with " + process.exitValue() + ":\n"
                    + Files.readString(output));
        }
        Files.delete(output);
    }

    /** Fast shutdown by pg_ctl (sessions are ended, not waited for), then a kill if it is still there. */
    private void stopServer() {
        Process running = server;
        server = null;
        if (running == null) {
            return;
        }
        try {
            if (running.isAlive()) {
                List<String> stop = new ArrayList<>(asServerUser);
                stop.addAll(List.of(
                        BIN.resolve("pg_ctl").toString(),
                        "stop",
                        "-D",
                        dataDirectory().toString(),
                        "-m",
                        "fast",
                        "-w",
                        "-t",
                        "20"));
                Process pgCtl = new ProcessBuilder(stop)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start();
                pgCtl.waitFor(30, TimeUnit.SECONDS);
                pgCtl.destroyForcibly();
            }
            if (!running.waitFor(10, TimeUnit.SECONDS)) {
                log.warn("PostgreSQL did not stop within its bound: killing it");
                running.descendants().forEach(ProcessHandle::destroyForcibly);
                running.destroyForcibly();
                running.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            running.descendants().forEach(ProcessHandle::destroyForcibly);
            running.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.descendants().forEach(ProcessHandle::destroyForcibly);
            running.destroyForcibly();
        }
    }

    private synchronized void stopAndRemove() {
        stopServer();
        try (Stream<Path> all = Files.walk(directory)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            log.warn("Could not remove {}: {}", directory, e.toString());
        }
    }

    /** Stops the server and removes its directory. */
    @Override
    public void close() {
        stopAndRemove();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs, and finds nothing left to do
        }
    }
}
