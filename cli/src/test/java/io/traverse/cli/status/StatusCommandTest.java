package io.traverse.cli.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.cli.TraverseCommand;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import io.traverse.hub.http.StatusJson;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class StatusCommandTest {
    private record Run(int exitCode, String out, String err) {}

    /** Runs the command with buffered output streams, as {@code main} has (System.out), and no flush after. */
    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli = TraverseCommand.commandLine();
        cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        int code = cli.execute(args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static HubConfig.Builder hub(String name) {
        return HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(0)
                .name(name)
                .token("status-test")
                .keepaliveInterval(Duration.ofMillis(200));
    }

    @Test
    void printsHubsRoutesLinksAndTheirRttFromARunningHub() throws Exception {
        try (Hub alpha = Hub.start(hub("alpha").build());
                Hub beta = Hub.start(hub("beta")
                        .peer("127.0.0.1:" + alpha.linkAddress().getPort())
                        .build());
                Hub gamma = Hub.start(hub("gamma")
                        .advertisedAddresses(java.util.List.of())
                        .peer("127.0.0.1:" + beta.linkAddress().getPort())
                        .build())) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> alpha.status().routes().size() == 2
                            && alpha.status().hubLinks().stream().allMatch(l -> l.rttMicros() >= 0));
            int http = alpha.httpAddress().orElseThrow().getPort();

            Run run = run("status", "127.0.0.1:" + http);
            assertThat(run.exitCode()).as(run.err()).isZero();
            String out = run.out();
            assertThat(out.lines().findFirst().orElseThrow())
                    .startsWith("hub alpha (" + alpha.id() + ", key new at every start), state ")
                    .endsWith("links on " + String.join(", ", alpha.advertisedAddresses()));
            assertThat(out).doesNotContain("ID CONFLICT");
            assertThat(out)
                    .contains("2 other hubs known, 2 reachable; 0 nodes here; 0 names in the network")
                    .containsPattern("alpha +" + alpha.id() + " +this hub")
                    .containsPattern("beta +" + beta.id() + " +1 +beta ")
                    .containsPattern("gamma +" + gamma.id() + " +[12] +(beta|gamma) +\\d+ +\\(dials out only\\)")
                    .containsPattern(
                            "links to other hubs\n +peer +dialled by +remote +rtt\n +beta +(this hub|the peer) +127\\.0\\.0\\.1:\\d+ +\\d+\\.\\d\\d ms");

            Run json = run("status", "--json", "http://127.0.0.1:" + http);
            assertThat(json.exitCode()).isZero();
            assertThat(StatusJson.read(json.out()).hubId()).isEqualTo(alpha.id());
        }
    }

    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path dir;

    @Test
    void anotherHubWithThisHubsIdComesFirstNamingBoth() throws Exception {
        // One id is one key: a key file copied to a second place (a cloned machine), since one file is locked.
        java.nio.file.Path key = dir.resolve("one/hub.key");
        io.traverse.security.KeyFile.loadOrCreate(key, "hub");
        java.nio.file.Path copy =
                java.nio.file.Files.createDirectories(dir.resolve("two")).resolve("hub.key");
        java.nio.file.Files.copy(key, copy, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        try (Hub first = Hub.start(hub("twin").keyFile(key).build());
                Hub second = Hub.start(hub("twin")
                        .keyFile(copy)
                        .httpPort(-1)
                        .peer("127.0.0.1:" + first.linkAddress().getPort())
                        .build())) {
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> !first.status().idConflicts().isEmpty());
            Run run = run(
                    "status", "127.0.0.1:" + first.httpAddress().orElseThrow().getPort());
            assertThat(run.exitCode()).as(run.err()).isZero();
            String[] lines = run.out().split("\n");
            assertThat(lines[2])
                    .isEqualTo("ID CONFLICT: 1 other hub uses this hub's id " + first.id()
                            + "; give one of them a new id (docs/operations.md, \"Hub ids\")");
            assertThat(lines[3]).containsPattern("other hub +seen +address +advertises +times +last seen");
            assertThat(lines[4])
                    .containsPattern("twin +it dialled this hub +127\\.0\\.0\\.1:\\d+ +"
                            + second.advertisedAddresses().get(0).replace(".", "\\.")
                            + " +\\d+ +\\d{4}-\\d\\d-\\d\\dT");
            assertThat(lines[5])
                    .contains("its link was refused: two hubs have id " + first.id() + ": hub 'twin' (advertising "
                            + first.advertisedAddresses().get(0));

            Run json = run(
                    "status",
                    "--json",
                    "127.0.0.1:" + first.httpAddress().orElseThrow().getPort());
            assertThat(StatusJson.read(json.out()).idConflicts())
                    .singleElement()
                    .satisfies(c -> assertThat(c.otherAdvertisedAddresses()).isEqualTo(second.advertisedAddresses()));
        }
    }

    @Test
    void aHubThatDoesNotAnswerGivesAClearMessage() throws Exception {
        int freePort;
        try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            freePort = probe.getLocalPort();
        }
        Run run = run("status", "127.0.0.1:" + freePort);
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.err()).contains("no hub HTTP port answers at 127.0.0.1:" + freePort);
        assertThat(run("status", "not a host").err()).contains("not a hub address");
    }

    @Test
    void hubArgumentForms() {
        assertThat(StatusCommand.statusUri("hub1").toString()).isEqualTo("http://hub1:17080/status");
        assertThat(StatusCommand.statusUri("hub1:9000").toString()).isEqualTo("http://hub1:9000/status");
        assertThat(StatusCommand.statusUri("::1").toString()).isEqualTo("http://[::1]:17080/status");
        assertThat(StatusCommand.statusUri("[::1]:9000").toString()).isEqualTo("http://[::1]:9000/status");
        assertThat(StatusCommand.statusUri("http://h:1/").toString()).isEqualTo("http://h:1/status");
        assertThatThrownBy(() -> StatusCommand.statusUri("a b")).hasMessageContaining("not a hub address: 'a b'");
    }
}
