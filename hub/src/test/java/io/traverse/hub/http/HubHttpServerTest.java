package io.traverse.hub.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.status.HubStatusReport;
import io.traverse.hub.status.HubStatusReport.HubEntry;
import io.traverse.hub.status.HubStatusReport.LinkEntry;
import io.traverse.hub.status.HubStatusReport.NameEntry;
import io.traverse.hub.status.HubStatusReport.NodeEntry;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HubHttpServerTest {
    private static final HubStatusReport REPORT = new HubStatusReport(HubStatusReport.FORMAT_VERSION, 1_700_000_000_000L,
            new HubEntry("hubA", "alpha", 42, List.of("127.0.0.1:17000"), 0, null),
            List.of(new HubEntry("hubA", "alpha", 42, List.of("127.0.0.1:17000"), 0, null),
                    new HubEntry("hubB", "beta", 7, List.of("127.0.0.2:17000"), 1, "hubB"),
                    new HubEntry("hubC", "gamma", 9, List.of(), -1, null)),
            List.of(new LinkEntry("hub", "hubB", "beta", "out", "127.0.0.2:17000", 0.25, 1_699_999_999_000L),
                    new LinkEntry("node", "node1", null, "in", "127.0.0.1:40000", null, 1_699_999_999_500L)),
            List.of(new NodeEntry("node1", "hubA", "tv1-node1.a127-0-0-1p5000", "127.0.0.1:40000")),
            List.of(new NameEntry("db", "node1", 5432, "hubA")));

    private final AtomicInteger nodes = new AtomicInteger(3);
    private EventLoopGroup group;
    private HubMetrics metrics;
    private HubHttpServer server;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void start() throws Exception {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        metrics = new HubMetrics(nodes::get, () -> 1, () -> 3, () -> 2, () -> 1);
        server = HubHttpServer.start(new InetSocketAddress("127.0.0.1", 0), group, NioServerSocketChannel.class,
                () -> REPORT, metrics);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return client.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(5)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.localAddress().getPort() + path);
    }

    @Test
    void metricsAreServedInPrometheusTextWithLiveGauges() throws Exception {
        metrics.forwarded("side", 100);
        metrics.forwarded("side", 20);
        metrics.error("no_route");
        metrics.linkRejected("auth");
        HttpResponse<String> first = get("/metrics");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("content-type")).hasValueSatisfying(v -> assertThat(v).startsWith("text/plain"));
        assertThat(first.body())
                .contains("traverse_hub_nodes 3.0")
                .contains("traverse_hub_messages_forwarded_total{kind=\"side\"} 2.0")
                .contains("traverse_hub_bytes_forwarded_bytes_total{kind=\"side\"} 120.0")
                .contains("traverse_hub_errors_total{kind=\"no_route\"} 1.0")
                .contains("traverse_hub_links_rejected_total{reason=\"auth\"} 1.0");
        nodes.set(5);
        assertThat(get("/metrics").body()).as("gauges are read at scrape time").contains("traverse_hub_nodes 5.0");
    }

    @Test
    void statusIsTheReportAsJson() throws Exception {
        HttpResponse<String> response = get("/status");
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        HubStatusReport parsed = new ObjectMapper().readValue(response.body(), HubStatusReport.class);
        assertThat(parsed).isEqualTo(REPORT);
    }

    @Test
    void unknownPathsAndMethodsGetClearAnswers() throws Exception {
        HttpResponse<String> missing = get("/nope");
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.body()).contains("no such page: /nope").contains("/metrics");
        HttpResponse<String> post = client.send(HttpRequest.newBuilder(uri("/status"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(get("/").body()).contains("/status");
    }

    @Test
    void garbageClosesOnlyThatConnection() throws Exception {
        try (Socket raw = new Socket("127.0.0.1", server.localAddress().getPort())) {
            raw.setSoTimeout(5000);
            OutputStream out = raw.getOutputStream();
            out.write(("GET /" + "x".repeat(10_000) + " HTTP/1.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(raw.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(answer).as("an over-long request line is refused, then the connection closes")
                    .startsWith("HTTP/1.1 4");
        }
        assertThat(get("/status").statusCode()).isEqualTo(200);
    }

    @Test
    void connectionsBeyondTheLimitAreClosedWhileOthersAreServed() throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < HubHttpServer.MAX_CONNECTIONS; i++) {
                idle.add(new Socket("127.0.0.1", server.localAddress().getPort()));
            }
            try (Socket extra = new Socket("127.0.0.1", server.localAddress().getPort())) {
                extra.setSoTimeout(5000);
                InputStream in = extra.getInputStream();
                assertThat(in.read()).as("the connection over the limit is closed").isEqualTo(-1);
            }
            Socket first = idle.remove(0);
            first.close();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(get("/status").statusCode()).isEqualTo(200));
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }
}
