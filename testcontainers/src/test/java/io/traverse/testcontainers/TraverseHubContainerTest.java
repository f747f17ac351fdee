package io.traverse.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a user's integration test does: a hub in a container from the loaded image, two nodes in
 * this JVM linked to it, one connecting to the other (by registered name through the hub's relay
 * with the routed module alone; by virtual address with the default modules), data both ways
 * checked by length and SHA-256, each side half-closing. A node with another token is refused.
 *
 * <p>Needs a Docker engine with the image loaded: the {@code docker} profile, which .ci/run runs
 * after the namespace tests (the engine rewrites the host's nft tables and FORWARD policy, so it
 * must not run beside them). There a missing engine or image fails the test; elsewhere it is
 * skipped with the reason.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TraverseHubContainerTest {
    private static final boolean REQUIRED = Boolean.getBoolean("traverse.docker.required");
    private static final String SKIPPED =
            "TraverseHubContainerTest skipped: it needs a Docker engine and the hub image, so it runs"
                    + " with -Pdocker (.ci/run's docker step, after the namespace tests, which an engine beside them would break)";
    private static final int BYTES = 8 * 1024 * 1024;
    private static final int PORT = 5432;
    private static final TraverseHubContainer HUB = new TraverseHubContainer().withToken("container-test-token");
    private static final ExecutorService THREADS = Executors.newCachedThreadPool();
    private static final List<String> DEFAULT_MODULES = List.of("direct", "reverse", "splice", "routed", "longpoll");
    private static final Pattern DELIVERED =
            Pattern.compile("(?m)^traverse_hub_relay_bytes_total\\{[^}]*outcome=\"delivered\"[^}]*\\} ([0-9.eE+-]+)$");

    @BeforeAll
    static void startHub() {
        if (!REQUIRED) {
            // one line on the build's console (this module's output is not redirected outside the docker profile)
            System.out.println(SKIPPED);
            return;
        }
        long start = System.nanoTime();
        HUB.start();
        System.out.printf(
                "hub container %s ready in %d ms at %s%n",
                HUB.getContainerId().substring(0, 12),
                Duration.ofNanos(System.nanoTime() - start).toMillis(),
                HUB.getHubAddress());
    }

    @BeforeEach
    void needsTheEngine() {
        assumeTrue(REQUIRED, SKIPPED);
    }

    @AfterAll
    static void stopHub() {
        THREADS.shutdownNow();
        HUB.stop(); // nothing to do when it was never started
    }

    @Test
    void twoRoutedNodesConnectByNameThroughTheContainerisedHub() throws Exception {
        try (Traverse server = node("routed");
                Traverse client = node("routed");
                TraverseServerSocket listening = server.serverSocketFactory().createServerSocket("db-in-test", PORT)) {
            assertThat(server.awaitHubLink(Duration.ofSeconds(15))).isTrue();
            assertThat(client.awaitHubLink(Duration.ofSeconds(15))).isTrue();
            String status = hubStatus();
            assertThat(status)
                    .contains(server.identity().id().orElseThrow().toString())
                    .contains(client.identity().id().orElseThrow().toString())
                    .contains("db-in-test");

            double relayedBefore = relayedBytes();
            CompletableFuture<byte[]> served = serveOne(listening, 2);
            try (Socket s = client.socketFactory().createSocket("db-in-test", PORT)) {
                assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo("routed");
                assertThat(exchange(s, 1)).isEqualTo(expectedDigest(2));
            }
            assertThat(served.get(60, TimeUnit.SECONDS)).isEqualTo(expectedDigest(1));
            assertThat(relayedBytes() - relayedBefore)
                    .as("payload bytes the hub in the container relayed")
                    .isGreaterThanOrEqualTo(2.0 * BYTES);
        }
    }

    @Test
    void twoNodesWithTheDefaultModulesConnectByVirtualAddress() throws Exception {
        try (Traverse server = node();
                Traverse client = node();
                TraverseServerSocket listening = server.serverSocketFactory().createServerSocket(PORT)) {
            assertThat(server.awaitHubLink(Duration.ofSeconds(15))).isTrue();
            assertThat(client.awaitHubLink(Duration.ofSeconds(15))).isTrue();
            VirtualSocketAddress address = (VirtualSocketAddress) listening.getLocalSocketAddress();
            assertThat(address.getHostString())
                    .as("the hub hint in the address is the published port")
                    .contains("p" + HUB.getMappedPort(TraverseHubContainer.LINK_PORT));

            CompletableFuture<byte[]> served = serveOne(listening, 4);
            try (Socket s = client.socketFactory().createSocket(address.getHostString(), address.getPort())) {
                String module = client.connectionInfo(s).orElseThrow().module();
                assertThat(module).isIn(DEFAULT_MODULES);
                System.out.println("default-config pair connected by " + module);
                assertThat(exchange(s, 3)).isEqualTo(expectedDigest(4));
            }
            assertThat(served.get(60, TimeUnit.SECONDS)).isEqualTo(expectedDigest(3));
        }
    }

    @Test
    void aNodeWithAnotherTokenIsRefused() throws Exception {
        try (Traverse stranger = Traverse.start(TraverseConfig.builder()
                .set("traverse.hubs", HUB.getHubAddress())
                .token("not-the-network-token")
                .build())) {
            assertThat(stranger.awaitHubLink(Duration.ofSeconds(3))).isFalse();
            assertThat(stranger.hubLinkStatus().toString()).containsIgnoringCase("token");
        }
    }

    /** A node as an application starts one: the hub's address and token, otherwise the defaults. */
    private static Traverse node(String... modules) throws IOException {
        TraverseConfig.Builder config = TraverseConfig.builder()
                .set("traverse.hubs", HUB.getHubAddress())
                .token(HUB.getToken());
        if (modules.length > 0) {
            config.modules(modules);
        }
        return Traverse.start(config.build());
    }

    private static String hubStatus() throws Exception {
        return get("/status");
    }

    /** The hub's {@code traverse_hub_relay_bytes_total} delivered to its own nodes, from its Prometheus endpoint. */
    private static double relayedBytes() throws Exception {
        Matcher m = DELIVERED.matcher(get("/metrics"));
        double sum = 0;
        while (m.find()) {
            sum += Double.parseDouble(m.group(1));
        }
        return sum;
    }

    private static String get(String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(HUB.getHttpUrl() + path))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s", path).isEqualTo(200);
        return response.body();
    }

    private static CompletableFuture<byte[]> serveOne(TraverseServerSocket listening, long seed) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try (Socket s = listening.accept()) {
                        return exchange(s, seed);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                THREADS);
    }

    /**
     * Writes {@link #BYTES} of the stream seeded {@code seed} and half-closes, while reading the
     * other side to EOF; checks the length read and returns its SHA-256.
     */
    private static byte[] exchange(Socket s, long seed) throws Exception {
        CompletableFuture<Void> written = CompletableFuture.runAsync(
                () -> {
                    try {
                        OutputStream out = s.getOutputStream();
                        Random random = new Random(seed);
                        byte[] chunk = new byte[64 * 1024 + 7];
                        for (int left = BYTES; left > 0; left -= chunk.length) {
                            random.nextBytes(chunk);
                            out.write(chunk, 0, Math.min(left, chunk.length));
                        }
                        out.flush();
                        s.shutdownOutput();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                THREADS);
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        InputStream in = s.getInputStream();
        byte[] buffer = new byte[37 * 1024];
        long read = 0;
        for (int n; (n = in.read(buffer)) != -1; ) {
            digest.update(buffer, 0, n);
            read += n;
        }
        assertThat(in.read()).as("EOF stays EOF").isEqualTo(-1);
        written.get(60, TimeUnit.SECONDS);
        assertThat(read).as("bytes read to EOF").isEqualTo(BYTES);
        return digest.digest();
    }

    private static byte[] expectedDigest(long seed) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        Random random = new Random(seed);
        byte[] chunk = new byte[64 * 1024 + 7];
        for (int left = BYTES; left > 0; left -= chunk.length) {
            random.nextBytes(chunk);
            digest.update(chunk, 0, Math.min(left, chunk.length));
        }
        return digest.digest();
    }
}
