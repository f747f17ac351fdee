package io.traverse.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release archive as an operator gets it: unpacked into an empty directory and run from
 * there, with no Maven class path and no build tree, through its own bin/traverse.
 */
class ReleaseArchiveTest {
    private static final String VERSION = System.getProperty("traverse.version");

    @TempDir
    static Path dir;

    static Path home;

    @BeforeAll
    static void unpack() throws Exception {
        Path archive = Path.of(System.getProperty("traverse.archive"));
        assertThat(archive).isRegularFile();
        Process tar = new ProcessBuilder("tar", "-xzf", archive.toString(), "-C", dir.toString())
                .inheritIO()
                .start();
        assertThat(tar.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(tar.exitValue()).isZero();
        try (Stream<Path> top = Files.list(dir)) {
            assertThat(top.map(p -> p.getFileName().toString())).containsExactly("traverse-" + VERSION);
        }
        home = dir.resolve("traverse-" + VERSION);
    }

    @Test
    void theArchiveHoldsTheLauncherTheJarsOneLoggingBindingTheExamplesAndTheUnits() throws Exception {
        assertThat(Files.getPosixFilePermissions(home.resolve("bin/traverse")))
                .contains(
                        PosixFilePermission.OWNER_EXECUTE,
                        PosixFilePermission.GROUP_EXECUTE,
                        PosixFilePermission.OTHERS_EXECUTE);
        List<String> jars;
        try (Stream<Path> lib = Files.list(home.resolve("lib"))) {
            jars = lib.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(jars)
                .allMatch(j -> j.endsWith(".jar"))
                .contains(
                        "traverse-cli-" + VERSION + ".jar",
                        "traverse-core-" + VERSION + ".jar",
                        "traverse-hub-" + VERSION + ".jar",
                        "traverse-direct-" + VERSION + ".jar",
                        "traverse-routed-" + VERSION + ".jar",
                        "picocli-4.7.7.jar")
                .doesNotContain("traverse.jar") // the shaded jar would bring every class twice
                .noneMatch(j -> j.startsWith("junit") || j.startsWith("assertj") || j.startsWith("sshd-"));
        List<String> bindings = new ArrayList<>();
        for (String jar : jars) {
            try (JarFile file = new JarFile(home.resolve("lib").resolve(jar).toFile())) {
                if (file.getEntry("META-INF/services/org.slf4j.spi.SLF4JServiceProvider") != null) {
                    bindings.add(jar);
                }
            }
        }
        assertThat(bindings).as("SLF4J bindings in lib/").containsExactly("slf4j-simple-2.0.17.jar");
        assertThat(home.resolve("config"))
                .isDirectoryContaining(p -> p.endsWith("hub.properties"))
                .isDirectoryContaining(p -> p.endsWith("traverse.properties"))
                .isDirectoryContaining(p -> p.endsWith("expose-example.env"));
        String hubUnit = Files.readString(home.resolve("systemd/traverse-hub.service"));
        assertThat(hubUnit)
                .contains(
                        "ExecStart=/opt/traverse/bin/traverse hub --config /etc/traverse/hub.properties",
                        "DynamicUser=yes",
                        "StateDirectory=traverse",
                        "NoNewPrivileges=yes",
                        "ProtectSystem=strict",
                        "Restart=on-failure")
                .doesNotContain("\nMemoryDenyWriteExecute="); // the JIT needs memory it writes and runs
        assertThat(Files.readString(home.resolve("systemd/traverse-expose@.service")))
                .contains("ExecStart=/opt/traverse/bin/traverse expose ${EXPOSE_PORT} --name %i", "DynamicUser=yes");
        assertThat(Files.readString(home.resolve("systemd/traverse-agent.service")))
                .contains(
                        "ExecStart=/opt/traverse/bin/traverse agent --config /etc/traverse/agent.conf --token-file %d/token",
                        "ExecReload=/bin/kill -HUP $MAINPID",
                        "LoadCredential=token:/etc/traverse/token",
                        "DynamicUser=yes")
                .doesNotContain("\nMemoryDenyWriteExecute=");
        assertThat(home.resolve("config")).isDirectoryContaining(p -> p.endsWith("agent.conf"));
        assertThat(home.resolve("docs/operations.md")).content().contains("## Installing on a cluster frontend");
    }

    @Test
    void versionRunsFromTheUnpackedTreeThroughASymlinkWithJavaHome() throws Exception {
        Path link = dir.resolve("elsewhere/traverse");
        Files.createDirectories(link.getParent());
        Files.createSymbolicLink(link, home.resolve("bin/traverse"));
        Process process = start(List.of(link.toString(), "--version"), Map.of());
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out.strip()).isEqualTo("traverse " + VERSION);
        assertThat(process.exitValue()).isZero();
    }

    @Test
    void aHubRunsFromTheUnpackedTreeWithTheExampleConfigUntilSigterm() throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "archive-test\n");
        // JAVA_OPTS reaches the JVM: thread names are off in the command's logging unless it says otherwise.
        Process process = start(
                List.of(
                        home.resolve("bin/traverse").toString(),
                        "hub",
                        "--config",
                        home.resolve("config/hub.properties").toString(),
                        "--token-file",
                        token.toString(),
                        "--name",
                        "archive-test",
                        "--bind",
                        "127.0.0.1",
                        "--port",
                        "0",
                        "--http-port",
                        "0",
                        "--discovery-port",
                        "-1",
                        "--advertise",
                        "none"),
                Map.of("JAVA_OPTS", "-Dorg.slf4j.simpleLogger.showThreadName=true"));
        List<String> lines = new ArrayList<>();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                lines.add(line);
                if (line.contains("listening on")) {
                    process.toHandle().destroy(); // SIGTERM, as systemd stops it
                }
            }
            assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        } finally {
            process.destroyForcibly();
        }
        assertThat(lines)
                .anySatisfy(l -> assertThat(l)
                        .contains("[main] INFO")
                        .contains("Hub archive-test")
                        .contains("listening on /127.0.0.1:"));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("Hub archive-test stopped"));
        assertThat(lines).noneSatisfy(l -> assertThat(l).containsAnyOf("WARN", "ERROR", "SLF4J"));
        assertThat(process.exitValue())
                .as("exit status after SIGTERM, SuccessExitStatus in the unit")
                .isEqualTo(143);
    }

    /**
     * The units as systemd reads them: {@code systemd-analyze verify} finds nothing to say (unknown
     * keys, bad values, a missing ExecStart binary all print a line) and {@code security} rates each
     * service's exposure at most 2.0 of 10 ("OK"). The ExecStart path points into the unpacked tree,
     * since /opt/traverse is not installed here.
     */
    @Test
    void theUnitsPassSystemdAnalyzeVerifyAndRateAsHardened() throws Exception {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        assumeTrue(
                Files.isExecutable(analyze),
                "systemd-analyze is not installed (Debian package systemd; .ci/run installs it)");
        Path units = dir.resolve("units");
        Files.createDirectories(units);
        List<String> names = List.of("traverse-hub.service", "traverse-agent.service", "traverse-expose@.service");
        for (String name : names) {
            String unit = Files.readString(home.resolve("systemd").resolve(name));
            Files.writeString(
                    units.resolve(name),
                    unit.replace(
                            "/opt/traverse/bin/traverse",
                            home.resolve("bin/traverse").toString()));
        }
        List<String> verify = new ArrayList<>(List.of(analyze.toString(), "verify"));
        names.forEach(
                name -> verify.add(units.resolve(name.replace("@.", "@db.")).toString()));
        assertThat(run(verify)).as("systemd-analyze verify").isEqualTo(new Outcome(0, ""));
        for (String name : names) {
            Outcome security = run(List.of(
                    analyze.toString(),
                    "security",
                    "--offline=yes",
                    "--threshold=20",
                    units.resolve(name).toString()));
            assertThat(security.exitValue())
                    .as("exposure of %s above 2.0:%n%s", name, security.output())
                    .isZero();
        }
    }

    private record Outcome(int exitValue, String output) {}

    private static Outcome run(List<String> command) throws Exception {
        Process process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new Outcome(process.exitValue(), output.strip());
    }

    /** The archive's launcher with this JVM as JAVA_HOME, nothing of Maven's class path, stderr with stdout. */
    private static Process start(List<String> command, Map<String, String> extraEnvironment) throws IOException {
        ProcessBuilder builder =
                new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment()
                .keySet()
                .removeIf(k -> k.equals("CLASSPATH")
                        || k.equals("JAVA_OPTS")
                        || k.startsWith("TRAVERSE_")
                        || k.startsWith("MAVEN"));
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().putAll(extraEnvironment);
        return builder.start();
    }
}
