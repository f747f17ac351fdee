package io.traverse.cli.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.hub.HubConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class HubCommandTest {
    @TempDir
    Path dir;

    private HubConfig parse(Map<String, String> env, String... args) throws Exception {
        HubCommand command = new HubCommand();
        new CommandLine(command).parseArgs(args);
        return command.hubConfig(env);
    }

    @Test
    void defaultsAreTheDocumentedOnes() throws Exception {
        HubConfig config = parse(Map.of());
        assertThat(config.port()).isEqualTo(17000);
        assertThat(config.bindAddress()).isEqualTo("0.0.0.0");
        assertThat(config.httpPort()).isEqualTo(17080);
        assertThat(config.token()).isEmpty();
        assertThat(config.name()).isEmpty();
        assertThat(config.stateDirectory())
                .isEqualTo(Path.of(System.getProperty("user.home"), ".local/state/traverse"));
        assertThat(config.keySource())
                .hasToString("kept in " + config.stateDirectory().resolve("hub-17000.key"));
        assertThat(config.advertisedAddresses()).isEmpty();
        assertThat(config.keepaliveInterval()).isEqualTo(Duration.ofSeconds(2));
        // the admission limits of docs/operations.md
        assertThat(config.maxNodes()).isEqualTo(10_000);
        assertThat(config.maxRelayedPerNode()).isEqualTo(5_000);
        assertThat(config.maxSetupsPerNode()).isEqualTo(1_024);
        assertThat(config.maxRelayed()).isEqualTo(65_536);
        assertThat(config.linkRate()).isEqualTo(500);
        assertThat(config.linkBurst()).isEqualTo(1_000);
    }

    @Test
    void theAdmissionLimitsComeFromTheFile() throws Exception {
        Path file = dir.resolve("limits.properties");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "traverse.hub.max.relayed.per.node = 100",
                        "traverse.hub.max.setups.per.node = 10",
                        "traverse.hub.max.relayed = 1000",
                        "traverse.hub.link.rate = 20",
                        "traverse.hub.link.burst = 40"));
        HubConfig config = parse(Map.of(), "--config", file.toString());
        assertThat(config.maxRelayedPerNode()).isEqualTo(100);
        assertThat(config.maxSetupsPerNode()).isEqualTo(10);
        assertThat(config.maxRelayed()).isEqualTo(1000);
        assertThat(config.linkRate()).isEqualTo(20);
        assertThat(config.linkBurst()).isEqualTo(40);
    }

    @Test
    void optionsOverrideTheFileAndTheFileFillsTheRest() throws Exception {
        Path file = dir.resolve("hub.properties");
        Files.writeString(
                file,
                String.join(
                        "\n",
                        "traverse.hub.port = 17100",
                        "traverse.hub.name = site-a",
                        "traverse.hub.peers = hub-b.example.org, 10.0.0.2:17001",
                        "traverse.hub.keepalive = 500ms",
                        "traverse.hub.max.names.per.node = 8",
                        "traverse.token = from-file"));
        HubConfig config = parse(
                Map.of("TRAVERSE_TOKEN", "from-env"),
                "--config",
                file.toString(),
                "--port",
                "17200",
                "--peer",
                "10.0.0.3",
                "--advertise",
                "none",
                "--http-port",
                "-1");
        assertThat(config.port()).isEqualTo(17200);
        assertThat(config.name()).contains("site-a");
        assertThat(config.peers()).containsExactly("hub-b.example.org", "10.0.0.2:17001", "10.0.0.3");
        assertThat(config.keepaliveInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.maxNamesPerNode()).isEqualTo(8);
        assertThat(config.advertisedAddresses()).contains(List.of());
        assertThat(config.httpPort()).isEqualTo(-1);
        assertThat(config.token()).isEqualTo("from-file");
    }

    @Test
    void theKeyOfAHubIsKeptInTheStateDirectoryOrTheKeyFile() throws Exception {
        assertThat(parse(Map.of("XDG_STATE_HOME", "/var/state")).keySource())
                .hasToString("kept in /var/state/traverse/hub-17000.key");
        assertThat(parse(Map.of("XDG_STATE_HOME", "relative/ignored")).stateDirectory())
                .isEqualTo(Path.of(System.getProperty("user.home"), ".local/state/traverse"));
        assertThat(parse(Map.of(), "--state-dir", dir.toString(), "--port", "17100")
                        .keySource())
                .hasToString("kept in " + dir.resolve("hub-17100.key"));
        assertThat(parse(Map.of(), "--key-file", dir.resolve("my.key").toString())
                        .keySource())
                .hasToString("kept in " + dir.resolve("my.key"));
        Path file = dir.resolve("hub.properties");
        Files.writeString(file, "traverse.hub.state.dir = " + dir.resolve("from-file") + "\n");
        assertThat(parse(Map.of(), "--config", file.toString()).keySource())
                .hasToString("kept in " + dir.resolve("from-file/hub-17000.key"));
        Files.writeString(file, "traverse.hub.key.file = " + dir.resolve("file.key") + "\n");
        assertThat(parse(Map.of(), "--config", file.toString()).keySource())
                .hasToString("kept in " + dir.resolve("file.key"));
        // A name names the key file; port 0 (a new address at every start) gets a new key at every start.
        assertThat(parse(Map.of(), "--name", "site-a", "--state-dir", dir.toString())
                        .keySource())
                .hasToString("kept in " + dir.resolve("hub-site-a.key"));
        assertThat(parse(Map.of(), "--port", "0").keySource()).hasToString("new at every start");
    }

    @Test
    void sshTunnelRulesComeFromOptionsAndTheFile() throws Exception {
        Path file = dir.resolve("hub.properties");
        Files.writeString(
                file,
                "traverse.hub.ssh.tunnels = 10.1.0.0/24 user=hub key=/k/a gateway=198.18.1.1;"
                        + " 10.2.0.0/24 user=hub key=/k/b\n");
        HubConfig config = parse(
                Map.of(),
                "--config",
                file.toString(),
                "--ssh-tunnel",
                "198.18.5.0/24 user=ops key=/k/c port=2222 known-hosts=/k/kh");
        assertThat(config.sshTunnels()).hasSize(3);
        assertThat(config.sshTunnels().get(0).gatewayHost()).isEqualTo("198.18.1.1");
        assertThat(config.sshTunnels().get(2).port()).isEqualTo(2222);
        assertThat(config.sshTunnels().get(2).user()).isEqualTo("ops");
        assertThatThrownBy(() -> parse(Map.of(), "--ssh-tunnel", "10.0.0.0/8 key=/k"))
                .hasMessageContaining("ssh tunnel '10.0.0.0/8 key=/k'")
                .hasMessageContaining("user=NAME");
    }

    @Test
    void tokenComesFromOptionThenTokenFileThenEnvironment() throws Exception {
        Path tokenFile = dir.resolve("token");
        Files.writeString(tokenFile, "s3cret\n");
        assertThat(parse(Map.of("TRAVERSE_TOKEN", "env"), "--token", "opt", "--token-file", tokenFile.toString())
                        .token())
                .isEqualTo("opt");
        assertThat(parse(Map.of("TRAVERSE_TOKEN", "env"), "--token-file", tokenFile.toString())
                        .token())
                .isEqualTo("s3cret");
        assertThat(parse(Map.of("TRAVERSE_TOKEN", "env")).token()).isEqualTo("env");
    }

    @Test
    void mistakesAreNamed() {
        Path file = dir.resolve("typo.properties");
        assertThatThrownBy(() -> {
                    Files.writeString(file, "traverse.hub.prot = 1\n");
                    parse(Map.of(), "--config", file.toString());
                })
                .hasMessageContaining("unknown keys [traverse.hub.prot]");
        assertThatThrownBy(() -> parse(Map.of(), "--port", "70000")).hasMessageContaining("port 70000");
        assertThatThrownBy(() -> parse(Map.of(), "--peer", "a:b:c")).hasMessageContaining("peer");
        assertThatThrownBy(() -> parse(Map.of(), "--name", "has space")).hasMessageContaining("hub name");
    }

    @Test
    void theDaemonStartsAndStopsCleanlyOnSigterm() throws Exception {
        List<String> lines = runUntilListening("--name", "sigterm-test");
        assertThat(lines)
                .anySatisfy(l -> assertThat(l).contains("Hub sigterm-test").contains("listening on /127.0.0.1:"));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("Hub sigterm-test stopped"));
    }

    @Test
    void theDaemonLogsWhichKeyItUsesAndStopsOnAKeyFileWithoutAKey() throws Exception {
        Path keyFile = dir.resolve("state/hub.key");
        List<String> first = runUntilListening("--key-file", keyFile.toString());
        String id = Files.readAllLines(keyFile).get(0).replaceAll(".* Its id is ([a-z2-7]+)\\.$", "$1");
        assertThat(id).hasSize(26);
        assertThat(first)
                .anySatisfy(l -> assertThat(l)
                        .contains("INFO")
                        .endsWith(": generated a new hub key, id " + id + ", in " + keyFile));
        List<String> second = runUntilListening("--key-file", keyFile.toString());
        assertThat(second)
                .anySatisfy(l -> assertThat(l).contains("INFO").endsWith(": hub key, id " + id + ", from " + keyFile));
        assertThat(second).anySatisfy(l -> assertThat(l).contains("(id " + id + ") listening on"));

        Files.writeString(keyFile, "garbage!\n");
        List<String> corrupt = runUntilListening("--key-file", keyFile.toString());
        // One clear line naming the file, no stack trace, no hub under a new key, and the file left as it was.
        assertThat(corrupt)
                .singleElement()
                .asString()
                .startsWith("traverse hub: the hub key file " + keyFile + " does not hold a key: ")
                .endsWith("; correct it, or delete it to give this hub a new key (and with it a new id)");
        assertThat(Files.readString(keyFile)).isEqualTo("garbage!\n");
    }

    /** Runs {@code traverse hub} in its own JVM until it is listening (then SIGTERM) or exits; its output lines. */
    private static List<String> runUntilListening(String... extra) throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(
                java.toString(),
                "-cp",
                classPath,
                "io.traverse.cli.TraverseCommand",
                "hub",
                "--bind",
                "127.0.0.1",
                "--port",
                "0",
                "--advertise",
                "none",
                "--token",
                "t",
                "--http-port",
                "-1",
                "--discovery-port",
                "-1"));
        command.addAll(List.of(extra));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                lines.add(line);
                if (line.contains("listening on")) {
                    process.toHandle().destroy(); // SIGTERM; Process.destroy() would also close our end of the output
                }
            }
            assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        } finally {
            process.destroyForcibly();
        }
        return lines;
    }
}
