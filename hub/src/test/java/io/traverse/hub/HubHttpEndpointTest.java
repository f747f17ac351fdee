package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.traverse.wire.LookupKind;
import io.traverse.wire.SideMessage;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class HubHttpEndpointTest {
    private final TestHubs hubs = new TestHubs();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @AfterEach
    void closeHubs() {
        hubs.close();
    }

    @Test
    void metricsAndStatusDescribeTheHubNetwork() throws Exception {
        Hub a = hubs.start("http-a", b -> b.httpPort(0).advertisedAddresses(java.util.List.of()));
        Hub b = hubs.dialOnly("http-b", a);
        try (TestNodeClient node = TestNodeClient.connect(a, TestHubs.TOKEN, "metered");
                TestNodeClient wrong = TestNodeClient.connect(a, TestHubs.TOKEN, "other")) {
            node.bind("metered-svc", 80);
            node.send(SideMessage.request(1, node.id(), io.traverse.identity.NodeId.of("ghost"), "s", new byte[0]));
            node.await(SideMessage.class);
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(
                            () -> assertThat(node.lookup(LookupKind.HUBS, "").entries())
                                    .hasSize(2));
            try {
                TestNodeClient.connect(a, "wrong", "intruder").close();
            } catch (TestNodeClient.RejectedException expected) {
                // counted below
            }
            int port = a.httpAddress().orElseThrow().getPort();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                HttpResponse<String> metrics = get(port, "/metrics");
                assertThat(metrics.statusCode()).isEqualTo(200);
                assertThat(metrics.headers().firstValue("content-type"))
                        .hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
                assertThat(metrics.body())
                        .contains("traverse_hub_nodes{hub=\"http-a\"} 2.0")
                        .contains("traverse_hub_links{hub=\"http-a\"} 1.0")
                        .contains("traverse_hub_reachable_hubs{hub=\"http-a\"} 1.0")
                        .contains("traverse_hub_names{hub=\"http-a\"} 1.0")
                        .contains("traverse_hub_side_errors_total{hub=\"http-a\",kind=\"UNKNOWN_NODE\"} 1.0")
                        .contains("traverse_hub_links_refused_total{code=\"AUTH\",hub=\"http-a\"} 1.0");
            });
            HttpResponse<String> status = get(port, "/status");
            assertThat(status.statusCode()).isEqualTo(200);
            JsonNode json = new ObjectMapper().readTree(status.body());
            assertThat(json.get("name").asText()).isEqualTo("http-a");
            assertThat(json.get("hubId").asText()).isEqualTo(a.id().toString());
            assertThat(json.get("routes").get(b.id().toString()).get("hops").asInt())
                    .isEqualTo(1);
            assertThat(json.get("names").get("metered-svc").get("nodeId").asText())
                    .isEqualTo(node.id().toString());
            assertThat(json.get("nodes")).hasSize(2);
            assertThat(get(port, "/nothing").statusCode()).isEqualTo(404);
            HttpResponse<String> post = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/status"))
                            .POST(HttpRequest.BodyPublishers.ofString("x"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(post.statusCode()).isEqualTo(405);
        }
        assertThat(b.httpAddress()).as("disabled by a negative port").isEmpty();
    }

    @Test
    void theDashboardPageIsServedFromTheJarAndItsFeedIsBounded() throws Exception {
        Hub hub = hubs.start("http-dash", b -> b.httpPort(0));
        int port = hub.httpAddress().orElseThrow().getPort();
        for (String path : new String[] {"/", "/dashboard"}) {
            HttpResponse<String> page = get(port, path);
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.headers().firstValue("content-type")).hasValue("text/html; charset=utf-8");
            assertThat(page.headers().firstValue("content-security-policy"))
                    .hasValueSatisfying(v -> assertThat(v).contains("default-src 'none'"));
            assertThat(page.body()).contains("<script src=\"/dashboard/dashboard.js\" defer></script>");
        }
        assertThat(get(port, "/dashboard/dashboard.js").body())
                .contains("new EventSource(\"/dashboard/events\")")
                .doesNotContain("innerHTML");
        assertThat(get(port, "/dashboard/dashboard.css").headers().firstValue("content-type"))
                .hasValue("text/css; charset=utf-8");

        List<Socket> streams = new ArrayList<>();
        try {
            long opened = System.nanoTime();
            for (int i = 0; i < 8; i++) {
                streams.add(openStream(port));
            }
            // Each of the eight has its place once it has a view: only then is the ninth sure to be the one refused.
            JsonNode view = new ObjectMapper().readTree(nextView(streams.get(0)));
            for (Socket stream : streams.subList(1, streams.size())) {
                assertThat(nextView(stream)).startsWith("{");
            }
            assertThat(view.get("hubName").asText()).isEqualTo("http-dash");
            assertThat(view.get("hubs")).hasSize(1);
            assertThat(view.get("relay").get("totalPerSecond").asLong()).isZero();
            try (Socket refused = openStream(port)) {
                assertThat(new String(refused.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                        .startsWith("HTTP/1.1 503")
                        .contains("too many dashboards open on this hub (at most 8)");
            }
            // A stream is not an idle request: it outlives the endpoint's read timeout.
            String late;
            do {
                late = nextView(streams.get(streams.size() - 1));
            } while (System.nanoTime() - opened < TimeUnit.SECONDS.toNanos(11));
            assertThat(late).startsWith("{");
            streams.remove(0).close();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                try (Socket again = openStream(port)) {
                    assertThat(nextView(again)).startsWith("{");
                }
            });
        } finally {
            for (Socket s : streams) {
                s.close();
            }
        }
    }

    @Test
    void furtherRequestsOnAConnectionAreDroppedSoOneConnectionHoldsOneStream() throws Exception {
        Hub hub = hubs.start("http-pipelined", b -> b.httpPort(0));
        int port = hub.httpAddress().orElseThrow().getPort();
        try (Socket pipelined = new Socket("127.0.0.1", port)) {
            pipelined.setSoTimeout(5000);
            // As many requests for the feed as it has places, in one write on one connection.
            pipelined.getOutputStream().write(STREAM_REQUEST.repeat(8).getBytes(StandardCharsets.US_ASCII));
            String read = readThroughView(pipelined);
            assertThat(read.split("HTTP/1.1 ", -1))
                    .as("one response on the connection, not one per request: %s", read)
                    .hasSize(2);
            try (Socket other = openStream(port)) {
                assertThat(readThroughView(other))
                        .as("the feed has places left for other connections")
                        .startsWith("HTTP/1.1 200");
            }
            assertThat(nextView(pipelined))
                    .as("the first request's stream goes on")
                    .startsWith("{");
        }
    }

    private static final String STREAM_REQUEST =
            "GET /dashboard/events HTTP/1.1\r\nHost: hub\r\nAccept: text/event-stream\r\n\r\n";

    private static Socket openStream(int port) throws Exception {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(5000);
        s.getOutputStream().write(STREAM_REQUEST.getBytes(StandardCharsets.US_ASCII));
        return s;
    }

    /** Reads a stream's lines until the next view's data line; returns its JSON. */
    private static String nextView(Socket stream) throws Exception {
        String read = readThroughView(stream);
        return read.substring(read.lastIndexOf("\ndata: ") + "\ndata: ".length(), read.length() - 1);
    }

    /** Reads a stream up to the end of its next view's data line; returns all it read. */
    private static String readThroughView(Socket stream) throws Exception {
        StringBuilder read = new StringBuilder();
        int lineStart = 0;
        InputStream in = stream.getInputStream();
        for (int c; (c = in.read()) >= 0; ) {
            read.append((char) c);
            if (c == '\n') {
                if (read.indexOf("data: ", lineStart) == lineStart) {
                    return read.toString();
                }
                lineStart = read.length();
            }
        }
        throw new java.io.EOFException("the stream ended after: " + read);
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
