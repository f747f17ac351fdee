package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.hub.Hub;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hub under a flood of idle connections and slowloris clients, on its link port (links and
 * HTTP requests there) and its HTTP port, keeps serving a real node: it links, registers a name
 * and relays 1 MiB each way (length and SHA-256 checked) while the flood goes on, and the hub cuts
 * every flood connection by its deadline. The flood's size and rate are system properties
 * ({@code flood.idle}, {@code flood.rate}, {@code flood.slow}, {@code flood.http}), so the same run,
 * scaled up, is the measurement in docs/benchmarks.md ("Floods and slowloris against a hub").
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class HubFloodTest {
    private static final int IDLE = Integer.getInteger("flood.idle", 2000);
    private static final int RATE = Integer.getInteger("flood.rate", 1000);
    private static final int SLOW = Integer.getInteger("flood.slow", 50);
    private static final int HTTP_IDLE = Integer.getInteger("flood.http", 500);
    /** Connections from one address at once: beyond the per-address limit, closed at once. */
    private static final int ONE_ADDRESS = 400;

    /** The hub's limits on connections waiting, as its keys say (defaults unless a measurement sets them). */
    private static final int MAX_HANDSHAKES = Integer.getInteger("flood.maxHandshakes", 1024);

    private static final int MAX_PER_ADDRESS = Integer.getInteger("flood.maxPerAddress", 256);
    private static final Duration DEADLINE = Duration.ofSeconds(Integer.getInteger("flood.deadline", 3));
    /**
     * What may come on top of a deadline on a loaded machine: the hub's timers and our watcher, and
     * the time a connection waits in the kernel's accept queue before the hub sees it (counted here
     * from our connect; the HTTP port's opening burst waited up to 2 s at load 9 on two cores).
     */
    private static final Duration SLACK = Duration.ofSeconds(3);

    private static final int MIB = 1 << 20;
    private static final int PORT = 7000;

    private final LoopbackHubNetwork net = new LoopbackHubNetwork();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    @Test
    void aRealNodeLinksNamesAndRelaysWhileTheHubCutsAFlood() throws Exception {
        Hub hub = net.hub(
                "flooded",
                b -> b.httpPort(0)
                        .handshakeTimeout(DEADLINE)
                        .httpRequestTimeout(DEADLINE)
                        .maxHandshakes(MAX_HANDSHAKES)
                        .maxHandshakesPerAddress(MAX_PER_ADDRESS));
        InetSocketAddress link = LoopbackHubNetwork.address(hub);
        InetSocketAddress http = hub.httpAddress().orElseThrow();
        // Control: a node's link time on this hub before the flood (after one to warm up).
        linkTime(hub).close();
        long controlMillis;
        try (Traverse control = linkTime(hub)) {
            controlMillis = lastLinkMillis;
        }
        ConnectionFlood flood = net.closeLater(new ConnectionFlood());
        ConnectionFlood.Kind idle = new ConnectionFlood.Kind("link port, idle", link, new byte[0], 0);
        ConnectionFlood.Kind oneAddress = new ConnectionFlood.Kind("link port, one address", link, new byte[0], 0);
        ConnectionFlood.Kind slowLink = new ConnectionFlood.Kind("link port, slow preamble", link, slowLink(), 100);
        ConnectionFlood.Kind slowLongPoll = new ConnectionFlood.Kind(
                "link port, slow HTTP",
                link,
                slowRequest("POST /traverse/longpoll/v1/open HTTP/1.1\r\nHost: hub\r\nX-Slow: "),
                100);
        ConnectionFlood.Kind httpIdle = new ConnectionFlood.Kind("HTTP port, idle", http, new byte[0], 0);
        ConnectionFlood.Kind slowHttp = new ConnectionFlood.Kind(
                "HTTP port, slow request", http, slowRequest("GET /status HTTP/1.1\r\nHost: hub\r\nX-Slow: "), 100);
        List<ConnectionFlood.Kind> kinds = List.of(idle, oneAddress, slowLink, slowLongPoll, httpIdle, slowHttp);

        for (int i = 0; i < SLOW; i++) {
            flood.open(slowLink, ConnectionFlood.loopback(10));
            flood.open(slowLongPoll, ConnectionFlood.loopback(11));
            flood.open(slowHttp, ConnectionFlood.loopback(13));
        }
        for (int i = 0; i < HTTP_IDLE; i++) {
            flood.open(httpIdle, ConnectionFlood.loopback(12));
        }
        for (int i = 0; i < ONE_ADDRESS; i++) {
            flood.open(oneAddress, ConnectionFlood.loopback(14));
        }
        // Idle connections from eight addresses at a steady rate, until there have been IDLE and the real node is done.
        AtomicBoolean nodeDone = new AtomicBoolean();
        CompletableFuture<Void> flooding = CompletableFuture.runAsync(
                () -> {
                    long start = System.nanoTime();
                    for (int i = 0; i < IDLE || !nodeDone.get(); i++) {
                        long due = start + TimeUnit.SECONDS.toNanos(1) * i / RATE;
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(wait);
                        }
                        flood.open(idle, ConnectionFlood.loopback(2 + i % 8));
                    }
                },
                net.threads());

        try {
            floodedHubServes(hub, http, kinds, idle, flooding, nodeDone, controlMillis);
        } finally {
            nodeDone.set(true);
            kinds.forEach(k -> System.out.println("FLOOD " + k));
            System.out.println("FLOOD refusals " + overloads(hub, "handshakes") + " handshakes, "
                    + overloads(hub, "handshakes-per-address") + " handshakes-per-address, "
                    + overloads(hub, "http-requests") + " http-requests");
        }
    }

    private void floodedHubServes(
            Hub hub,
            InetSocketAddress http,
            List<ConnectionFlood.Kind> kinds,
            ConnectionFlood.Kind idle,
            CompletableFuture<Void> flooding,
            AtomicBoolean nodeDone,
            long controlMillis)
            throws Exception {
        // The real nodes, while the flood goes on.
        long started = System.nanoTime();
        Traverse server =
                net.node(LoopbackHubNetwork.config(hub).modules("routed").build());
        Traverse client = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        boolean linked = server.awaitHubLink(Duration.ofSeconds(10)) && client.awaitHubLink(Duration.ofSeconds(10));
        long linkedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        System.out.printf(
                "FLOOD a node linked in %d ms before the flood; during it two nodes %s in %d ms, with %d idle"
                        + " connections opened by then%n",
                controlMillis, linked ? "linked" : "did NOT link", linkedMillis, idle.opened.get());
        assertThat(linked).as("the real nodes linked").isTrue();
        TraverseServerSocket listening =
                net.closeLater(server.serverSocketFactory().createServerSocket("flood-server", PORT));
        CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(
                () -> {
                    try (Socket accepted = listening.accept()) {
                        return SeededStreams.exchange(accepted, net.threads(), SeededStreams.EVEN, 2, MIB, () -> 8192);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                net.threads());
        await().atMost(Duration.ofSeconds(10))
                .ignoreExceptions()
                .until(() -> client.hubDirectory()
                        .resolveName("flood-server")
                        .get(5, TimeUnit.SECONDS)
                        .isPresent());
        byte[] received;
        try (Socket s = client.socketFactory().createSocket("flood-server", PORT)) {
            received = SeededStreams.exchange(s, net.threads(), SeededStreams.EVEN, 1, MIB, () -> 8192);
        }
        long relayedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(received).isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 2, MIB));
        assertThat(served.get(30, TimeUnit.SECONDS))
                .isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 1, MIB));
        // The HTTP port answers an operator while its flood is held.
        assertThat(httpGet(http, "/status")).startsWith("HTTP/1.1 200");
        long floodedFor = idle.opened.get();
        nodeDone.set(true);
        flooding.get(60, TimeUnit.SECONDS);

        // Every flood connection is cut: evicted for a newer one, refused, or at its deadline.
        await().atMost(DEADLINE.plus(SLACK).plusSeconds(2))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(kinds)
                        .allSatisfy(k -> assertThat(k.open()).as(k.toString()).isZero()));
        System.out.printf(
                "FLOOD name bound and 1 MiB each way relayed by %d ms, with %d idle connections opened meanwhile%n",
                relayedMillis, floodedFor);
        assertThat(kinds).allSatisfy(k -> {
            assertThat(k.closedByServer.get()).as(k.toString()).isEqualTo(k.opened.get());
            assertThat(Duration.ofNanos(k.longestNanos.get()))
                    .as(k.toString())
                    .isLessThanOrEqualTo(DEADLINE.plus(SLACK));
        });
        assertThat(overloads(hub, "handshakes")).as("idle links cycled out").isPositive();
        assertThat(overloads(hub, "handshakes-per-address"))
                .as("one address beyond its share")
                .isGreaterThanOrEqualTo(ONE_ADDRESS - MAX_PER_ADDRESS);
        assertThat(overloads(hub, "http-requests"))
                .as("idle HTTP connections cycled out")
                .isPositive();
        assertThat(hub.status().nodes()).hasSize(2);
    }

    @Test
    void anOversizedRequestHeadIsRefusedOnBothPorts() throws Exception {
        Hub hub = net.hub("big-heads", b -> b.httpPort(0));
        String big = "X-Big: " + "a".repeat(9000) + "\r\n";
        assertThat(httpGet(hub.httpAddress().orElseThrow(), "/status", big)).startsWith("HTTP/1.1 400");
        assertThat(httpRequest(
                        LoopbackHubNetwork.address(hub),
                        "POST /traverse/longpoll/v1/open HTTP/1.1\r\nHost: hub\r\n" + big
                                + "Content-Length: 0\r\n\r\n"))
                .startsWith("HTTP/1.1 400");
    }

    private long lastLinkMillis;

    /** A node started on {@code hub}, linked; {@link #lastLinkMillis} says how long that took. */
    private Traverse linkTime(Hub hub) throws Exception {
        long start = System.nanoTime();
        Traverse node = Traverse.start(LoopbackHubNetwork.config(hub).build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        lastLinkMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        return node;
    }

    /** A valid link preamble, then a HELLO frame's length and bytes that never end: one byte at a time. */
    private static byte[] slowLink() {
        ByteBuffer b = ByteBuffer.allocate(LinkPreamble.LENGTH + 4 + 400);
        b.putInt(LinkPreamble.MAGIC).putShort((short) LinkPreamble.VERSION).putShort((short) LinkRole.NODE.code());
        b.putInt(1000);
        while (b.hasRemaining()) {
            b.put((byte) 1);
        }
        return b.array();
    }

    /** An HTTP request head that never ends, a header byte at a time. */
    private static byte[] slowRequest(String start) {
        return (start + "a".repeat(8000)).getBytes(StandardCharsets.US_ASCII);
    }

    private static String httpGet(InetSocketAddress to, String path) throws IOException {
        return httpGet(to, path, "");
    }

    private static String httpGet(InetSocketAddress to, String path, String headers) throws IOException {
        return httpRequest(to, "GET " + path + " HTTP/1.1\r\nHost: hub\r\n" + headers + "Connection: close\r\n\r\n");
    }

    /** The status line of the answer to {@code request}. */
    private static String httpRequest(InetSocketAddress to, String request) throws IOException {
        try (Socket s = new Socket(to.getAddress(), to.getPort())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c; (c = in.read()) >= 0 && c != '\r'; ) {
                line.append((char) c);
            }
            return line.toString();
        }
    }

    private static double overloads(Hub hub, String limit) {
        return hub.metrics()
                .registry()
                .get("traverse.hub.overload.refusals")
                .tag("limit", limit)
                .counter()
                .count();
    }
}
