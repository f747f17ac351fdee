package io.traverse.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.cli.TraverseCommand;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code traverse agent}: several exposes and forwards on one node, reloads, metrics and the file's errors. */
class AgentTest {
    private static final String TOKEN = "agent-test-token";
    private final List<AutoCloseable> open = new ArrayList<>();
    private Hub hub;

    @TempDir
    Path dir;

    @BeforeEach
    void startHub() throws Exception {
        hub = Hub.start(HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .name("agent-hub")
                .token(TOKEN)
                .build());
        open.add(hub);
    }

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private String nodeLines() throws IOException {
        Path token = dir.resolve("token");
        Files.writeString(token, TOKEN + "\n");
        return "# the node\ntraverse.hubs = 127.0.0.1:" + hub.linkAddress().getPort() + "\ntoken-file = token\n"
                + "traverse.discovery = false\n";
    }

    private Path write(String text) throws IOException {
        Path file = dir.resolve("agent.conf");
        Files.writeString(file, text);
        return file;
    }

    /** A service that reads to EOF, then answers its marker byte, the SHA-256 and the length of what it read; any number of connections. */
    private ServerSocket digestService(byte marker) throws IOException {
        ServerSocket service = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        open.add(service);
        Thread server = new Thread(() -> {
            while (!service.isClosed()) {
                try {
                    Socket s = service.accept();
                    Thread each = new Thread(() -> {
                        try (s) {
                            byte[] all = s.getInputStream().readAllBytes();
                            s.getOutputStream().write(marker);
                            s.getOutputStream().write(sha256(all));
                            s.getOutputStream()
                                    .write(ByteBuffer.allocate(8)
                                            .putLong(all.length)
                                            .array());
                        } catch (IOException e) {
                            // the test fails on the client side
                        }
                    });
                    each.setDaemon(true);
                    each.start();
                } catch (IOException e) {
                    // closed
                }
            }
        });
        server.setDaemon(true);
        server.start();
        return service;
    }

    private Agent start(Path file, AgentMetrics metrics) throws IOException {
        Agent agent = Agent.start(AgentFile.read(file), metrics);
        open.add(agent);
        return agent;
    }

    private static int localPort(Agent agent, String service) {
        return ((ServerSocket) agent.services().get(service).listener()).getLocalPort();
    }

    /** Sends {@code data} through the forward, half-closes, and checks the service's answer: its marker, the data's digest and length, then EOF. */
    private static void roundTrip(int port, byte[] data, byte marker) throws Exception {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(30_000);
            s.getOutputStream().write(data);
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            assertThat(in.read()).as("the service that answered").isEqualTo(marker);
            assertThat(in.readNBytes(32)).isEqualTo(sha256(data));
            assertThat(ByteBuffer.wrap(in.readNBytes(8)).getLong()).isEqualTo(data.length);
            assertThat(in.read()).as("EOF after the answer").isEqualTo(-1);
        }
    }

    @Test
    void twoExposesAndTwoForwardsOnOneNodeCarryDataWithHalfCloseAndCountItPerService() throws Exception {
        ServerSocket db = digestService((byte) 'd');
        ServerSocket web = digestService((byte) 'w');
        Path file = write(nodeLines() + "\n# services\n"
                + "expose  db   " + db.getLocalPort() + " name=agent-db port=5432\n"
                + "expose  web  " + web.getLocalPort() + " name=agent-web port=80\n"
                + "forward to-db   0 agent-db:5432\n"
                + "forward to-web  0 agent-web:80   bind=127.0.0.1\n");
        AgentMetrics metrics = new AgentMetrics();
        Agent agent = start(file, metrics);
        assertThat(agent.services()).containsOnlyKeys("db", "web", "to-db", "to-web");
        byte[] toDb = random(1, 2 * 1024 * 1024 + 3);
        byte[] toWeb = random(2, 777_777);
        roundTrip(localPort(agent, "to-db"), toDb, (byte) 'd');
        roundTrip(localPort(agent, "to-web"), toWeb, (byte) 'w');
        roundTrip(localPort(agent, "to-web"), toWeb, (byte) 'w');

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            String scrape = metrics.scrape();
            assertThat(value(scrape, "traverse_agent_connections_accepted_total", "forward", "to-db", null))
                    .isEqualTo(1);
            assertThat(value(scrape, "traverse_agent_connections_accepted_total", "forward", "to-web", null))
                    .isEqualTo(2);
            assertThat(value(scrape, "traverse_agent_connections_accepted_total", "expose", "web", null))
                    .isEqualTo(2);
            assertThat(value(scrape, "traverse_agent_connections_failed_total", "forward", "to-db", null))
                    .isZero();
            assertThat(value(scrape, "traverse_agent_connections_open", "expose", "db", null))
                    .isZero();
            assertThat(value(scrape, "traverse_agent_piped_bytes_total", "forward", "to-db", "from_client"))
                    .isEqualTo(toDb.length);
            assertThat(value(scrape, "traverse_agent_piped_bytes_total", "expose", "db", "from_client"))
                    .isEqualTo(toDb.length);
            assertThat(value(scrape, "traverse_agent_piped_bytes_total", "forward", "to-web", "from_client"))
                    .isEqualTo(2L * toWeb.length);
            assertThat(value(scrape, "traverse_agent_piped_bytes_total", "forward", "to-db", "to_client"))
                    .isEqualTo(1 + 32 + 8);
        });
    }

    @Test
    void aForwardToANameNobodyHoldsCountsAFailureAndTheEndpointServesIt() throws Exception {
        Path file = write(nodeLines() + "forward nowhere 0 no-such-name:80\n");
        AgentMetrics metrics = new AgentMetrics();
        Agent agent = start(file, metrics);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), localPort(agent, "nowhere"))) {
            s.setSoTimeout(30_000);
            assertThatThrownBy(() -> s.getInputStream().read())
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("reset");
        }
        MetricsEndpoint endpoint = MetricsEndpoint.start("127.0.0.1", 0, metrics);
        open.add(endpoint);
        HttpClient client = HttpClient.newHttpClient();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            HttpResponse<String> got = client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(got.statusCode()).isEqualTo(200);
            assertThat(got.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
            assertThat(value(got.body(), "traverse_agent_connections_failed_total", "forward", "nowhere", null))
                    .isEqualTo(1);
        });
        HttpResponse<String> other = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + endpoint.port() + "/"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(other.statusCode()).isEqualTo(404);
    }

    @Test
    void aReloadStartsAnAddedServiceStopsARemovedOneAndLetsItsOpenConnectionFinish() throws Exception {
        ServerSocket db = digestService((byte) 'd');
        ServerSocket web = digestService((byte) 'w');
        String node = nodeLines();
        Path file = write(node + "expose db " + db.getLocalPort() + " name=reload-db port=5432\n"
                + "forward to-db 0 reload-db:5432\n"
                + "forward stays 0 reload-db:5432\n");
        AgentMetrics metrics = new AgentMetrics();
        Agent agent = start(file, metrics);
        int removedPort = localPort(agent, "to-db");
        int staysPort = localPort(agent, "stays");
        roundTrip(removedPort, random(3, 1000), (byte) 'd');

        // A connection through the forward about to be removed, open across the reload.
        Socket during = new Socket(InetAddress.getLoopbackAddress(), removedPort);
        open.add(during);
        during.setSoTimeout(30_000);
        byte[] before = random(4, 100_000);
        during.getOutputStream().write(before);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> agent.services().get("to-db").openConnections() == 1);

        write(node + "expose db " + db.getLocalPort() + " name=reload-db port=5432\n"
                + "expose web " + web.getLocalPort() + " name=reload-web port=80\n"
                + "forward to-web 0 reload-web:80\n"
                + "forward stays 0 reload-db:5432\n");
        Agent.Reload reload = agent.reload();
        assertThat(reload.error()).isNull();
        assertThat(reload.started()).containsExactlyInAnyOrder("web", "to-web");
        assertThat(reload.stopped()).containsExactly("to-db");
        assertThat(reload.restarted()).isEmpty();
        assertThat(reload.nodeSettingsChanged()).isFalse();
        assertThat(agent.services()).containsOnlyKeys("db", "web", "to-web", "stays");
        assertThat(localPort(agent, "stays"))
                .as("an unchanged service keeps running as it was")
                .isEqualTo(staysPort);

        roundTrip(localPort(agent, "to-web"), random(5, 300_000), (byte) 'w');
        assertThatThrownBy(() -> new Socket(InetAddress.getLoopbackAddress(), removedPort).close())
                .as("the removed forward no longer listens")
                .isInstanceOf(IOException.class);
        // The open connection of the removed forward finishes: the rest of its data, half-close, the answer.
        byte[] after = random(6, 50_000);
        during.getOutputStream().write(after);
        during.shutdownOutput();
        InputStream in = during.getInputStream();
        assertThat(in.read()).isEqualTo('d');
        byte[] all = new byte[before.length + after.length];
        System.arraycopy(before, 0, all, 0, before.length);
        System.arraycopy(after, 0, all, before.length, after.length);
        assertThat(in.readNBytes(32)).isEqualTo(sha256(all));
        assertThat(ByteBuffer.wrap(in.readNBytes(8)).getLong()).isEqualTo(all.length);
        assertThat(in.read()).isEqualTo(-1);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            String scrape = metrics.scrape();
            assertThat(scrape).doesNotContain("service=\"to-db\"");
            assertThat(value(scrape, "traverse_agent_connections_accepted_total", "forward", "to-web", null))
                    .isEqualTo(1);
        });

        // A changed service restarts; a changed node setting is reported, not applied.
        write(node.replace("traverse.discovery = false", "traverse.discovery = false\ntraverse.connect.timeout = 7s")
                + "expose db " + db.getLocalPort() + " name=reload-db port=5432\n"
                + "expose web " + web.getLocalPort() + " name=reload-web port=80\n"
                + "forward to-web 0 reload-web:80 bind=127.0.0.1\n"
                + "forward stays 0 reload-web:80\n");
        Agent.Reload second = agent.reload();
        assertThat(second.restarted()).containsExactly("stays");
        assertThat(second.started()).isEmpty();
        assertThat(second.nodeSettingsChanged()).isTrue();
        roundTrip(localPort(agent, "stays"), random(7, 4096), (byte) 'w');

        // An invalid file changes nothing.
        write(node + "expose db " + db.getLocalPort() + " name=reload-db port=5432\nforward broken 0 reload-db\n");
        Agent.Reload bad = agent.reload();
        assertThat(bad.error()).contains("agent.conf:" + (node.split("\n").length + 2) + ": forward broken:");
        assertThat(agent.services()).containsOnlyKeys("db", "web", "to-web", "stays");
        roundTrip(localPort(agent, "to-web"), random(8, 4096), (byte) 'w');
    }

    @Test
    void aBadFileFailsWithOneLineNamingTheLine() throws Exception {
        String node = nodeLines();
        int first = node.split("\n").length + 1;
        assertThat(failure(node + "forward web 99999 web:80\n"))
                .isEqualTo("traverse agent: " + dir.resolve("agent.conf") + ":" + first
                        + ": forward web: LOCAL-PORT 99999 is not within 0-65535");
        assertThat(failure(node + "expose db 5432\nforward db 0 db:5432\n"))
                .endsWith(":" + (first + 1) + ": service name 'db' is used on line " + first + " already");
        assertThat(failure(node + "traverse.no.such = 1\n"))
                .endsWith(
                        ":" + first
                                + ": unknown key 'traverse.no.such' (expected token-file or a traverse.* key from docs/operations.md, \"Configuration keys\")");
        assertThat(failure(node + "traverse.connect.timeout = soon\n"))
                .contains(":" + first + ": traverse.connect.timeout = 'soon'");
        assertThat(failure(node + "expose db 5432 colour=blue\n"))
                .endsWith(":" + first + ": expose db: unknown option 'colour=blue' (expected name=…, port=…)");
        assertThat(failure(node + "serve db 5432\n"))
                .endsWith(":" + first + ": 'serve' is neither KEY = VALUE nor an expose or forward line");
        assertThat(failure(node + "expose a 5432 name=a\nexpose b 5433 name=b port=5432\n"))
                .endsWith(":" + (first + 1) + ": expose b: virtual port 5432 is used on line " + first + " already");
        assertThat(failure(node + "forward a 18181 x:1\nforward b 18181 y:1\n"))
                .endsWith(":" + (first + 1) + ": forward b: local port 127.0.0.1:18181 is used on line " + first
                        + " already");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThat(failure(node + "forward a 0 x:1\nforward b " + taken.getLocalPort() + " y:1\n"))
                    .startsWith("traverse agent: " + dir.resolve("agent.conf") + ":" + (first + 1)
                            + ": forward b: cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
    }

    @Test
    void aTokenFromTheCommandLineServesAFileWithoutTokenFileAndTheFilesOwnWins() throws Exception {
        Path plain = write("traverse.discovery = false\n");
        assertThat(AgentFile.read(plain)
                        .nodeConfig("from-credential", "--token-file x")
                        .token())
                .contains("from-credential");
        Files.writeString(dir.resolve("token"), "from-file\n");
        Path withTokenFile = write("token-file = token\ntraverse.discovery = false\n");
        assertThat(AgentFile.read(withTokenFile)
                        .nodeConfig("from-credential", "--token-file x")
                        .token())
                .contains("from-file");
        StringWriter err = new StringWriter();
        int exit = TraverseCommand.commandLine()
                .setErr(new PrintWriter(err))
                .setOut(new PrintWriter(new StringWriter()))
                .execute(
                        "agent",
                        "--config",
                        plain.toString(),
                        "--token-file",
                        dir.resolve("missing").toString());
        assertThat(exit).isEqualTo(1);
        assertThat(err.toString().strip())
                .startsWith("traverse agent: --token-file " + dir.resolve("missing") + " cannot be read");
    }

    /** Runs {@code traverse agent} on a file that must fail, and returns what it printed: one line. */
    private String failure(String text) throws IOException {
        Path file = write(text);
        StringWriter err = new StringWriter();
        StringWriter out = new StringWriter();
        int exit = TraverseCommand.commandLine()
                .setErr(new PrintWriter(err))
                .setOut(new PrintWriter(out))
                .execute("agent", "--config", file.toString());
        assertThat(exit).isEqualTo(1);
        assertThat(out.toString()).isEmpty();
        String said = err.toString();
        assertThat(said.lines()).hasSize(1);
        return said.strip();
    }

    /** The value of one series of the Prometheus text, or -1 if it is not there. */
    private static long value(String scrape, String metric, String kind, String service, String direction) {
        String tags = (direction == null ? "" : "direction=\"" + direction + "\",") + "kind=\"" + kind + "\",service=\""
                + service + "\"";
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(metric + "{" + tags + "}") + " (\\S+)$")
                .matcher(scrape);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
    }

    static byte[] random(long seed, int length) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
