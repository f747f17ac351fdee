package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.traverse.wire.LookupKind;
import io.traverse.wire.SideMessage;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
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

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
