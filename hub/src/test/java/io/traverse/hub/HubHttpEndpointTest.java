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
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

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
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(node.lookup(LookupKind.HUBS, "").entries()).hasSize(2));
            try {
                TestNodeClient.connect(a, "wrong", "intruder").close();
            } catch (TestNodeClient.RejectedException expected) {
                // counted below
            }
            int port = a.httpAddress().orElseThrow().getPort();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                HttpResponse<String> metrics = get(port, "/metrics");
                assertThat(metrics.statusCode()).isEqualTo(200);
                assertThat(metrics.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
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
            assertThat(json.get("routes").get(b.id().toString()).get("hops").asInt()).isEqualTo(1);
            assertThat(json.get("names").get("metered-svc").get("nodeId").asText()).isEqualTo("metered");
            assertThat(json.get("nodes")).hasSize(2);
            assertThat(get(port, "/nothing").statusCode()).isEqualTo(404);
            HttpResponse<String> post = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/status"))
                    .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
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
            assertThat(page.headers().firstValue("content-security-policy")).hasValueSatisfying(v -> assertThat(v).contains("default-src 'none'"));
            assertThat(page.body()).contains("<script src=\"/dashboard/dashboard.js\" defer></script>");
        }
        assertThat(get(port, "/dashboard/dashboard.js").body()).contains("new EventSource(\"/dashboard/events\")").doesNotContain("innerHTML");
        assertThat(get(port, "/dashboard/dashboard.css").headers().firstValue("content-type")).hasValue("text/css; charset=utf-8");

        List<Socket> streams = new ArrayList<>();
        try {
            long opened = System.nanoTime();
            for (int i = 0; i < 8; i++) {
                streams.add(openStream(port));
            }
            JsonNode view = new ObjectMapper().readTree(nextView(streams.get(0)));
            assertThat(view.get("hubName").asText()).isEqualTo("http-dash");
            assertThat(view.get("hubs")).hasSize(1);
            assertThat(view.get("relay").get("totalPerSecond").asLong()).isZero();
            try (Socket refused = openStream(port)) {
                assertThat(new String(refused.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
                        .startsWith("HTTP/1.1 503").contains("too many dashboards open on this hub (at most 8)");
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

    private static Socket openStream(int port) throws Exception {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(5000);
        s.getOutputStream().write("GET /dashboard/events HTTP/1.1\r\nHost: hub\r\nAccept: text/event-stream\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        return s;
    }

    /** Reads a stream's lines until the next view's data line; returns its JSON. */
    private static String nextView(Socket stream) throws Exception {
        StringBuilder line = new StringBuilder();
        InputStream in = stream.getInputStream();
        for (int c; (c = in.read()) >= 0;) {
            if (c != '\n') {
                line.append((char) c);
            } else if (line.toString().startsWith("data: ")) {
                return line.substring("data: ".length());
            } else {
                line.setLength(0);
            }
        }
        throw new java.io.EOFException("the stream ended");
    }

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
