package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose hub link is a long-poll session: the link's byte stream in HTTP bodies
 * on the hub's link port, straight to the hub ({@code traverse.http.tunnel=longpoll}) or through
 * tinyproxy refusing CONNECT. Routed connections, accepted and connected, carry 16 MiB each way
 * (SHA-256, half-close) over it.
 */
class LongPollLinkTest {
    private static final int BYTES = 16 * 1024 * 1024;
    private static final int PORT = 4400;
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private final ExecutorService threads = net.threads();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    private Traverse longPollNode(Hub hub, String modules) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules(modules.split(","))
                .set("traverse.http.tunnel", "longpoll")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10)))
                .as("linked by long-poll: %s", node.hubLinkStatus())
                .isTrue();
        return node;
    }

    private Traverse plainNode(Hub hub, String modules) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules(modules.split(","))
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    @Test
    void routedConnectionsCarry16MiBEachWayOverALongPollSessionInBothDirections() throws Exception {
        Hub hub = net.hub("longpoll-hub");
        Traverse polling = longPollNode(hub, "routed");
        Traverse outside = plainNode(hub, "routed");
        assertThat(polling.hubLongPollRoute())
                .hasValueSatisfying(r -> assertThat(r).startsWith("long-poll session with hub 127.0.0.1:"));
        assertThat(outside.hubLongPollRoute()).isEmpty();
        assertThat(hub.longPollSessions()).isEqualTo(1);

        exchange16MiB(outside, polling, "routed");
        exchange16MiB(polling, outside, "routed");
    }

    @Test
    void whenTheProxyRefusesConnectTheNodeLinksByLongPollThroughItAndSideChannelNamesAndConnectionsWork()
            throws Exception {
        LoopbackTinyproxy proxy = net.closeLater(LoopbackTinyproxy.start("ConnectPort 443"));
        Hub hub = net.hub("longpoll-proxy-hub");
        Traverse behindProxy = net.node(LoopbackHubNetwork.config(hub)
                .modules("reverse", "routed", "longpoll")
                .httpProxy(proxy.authority())
                .nonProxyHosts("nothing.invalid")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(behindProxy.awaitHubLink(Duration.ofSeconds(15)))
                .as("%s", behindProxy.hubLinkStatus())
                .isTrue();
        assertThat(behindProxy.hubProxyAnswer())
                .hasValueSatisfying(
                        a -> assertThat(a).contains("refused CONNECT").contains("403"));
        assertThat(behindProxy.hubLongPollRoute())
                .hasValueSatisfying(
                        r -> assertThat(r).startsWith("long-poll session through HTTP proxy " + proxy.authority()));
        Traverse outside = plainNode(hub, "routed,longpoll");

        // Side channel both ways.
        outside.sideChannel()
                .register(
                        "upper",
                        (from, payload) -> new String(payload, StandardCharsets.UTF_8)
                                .toUpperCase(Locale.ROOT)
                                .getBytes(StandardCharsets.UTF_8));
        behindProxy
                .sideChannel()
                .register(
                        "lower",
                        (from, payload) -> new String(payload, StandardCharsets.UTF_8)
                                .toLowerCase(Locale.ROOT)
                                .getBytes(StandardCharsets.UTF_8));
        LoopbackHubNetwork.awaitRoute(behindProxy, outside);
        assertThat(behindProxy
                        .sideChannel()
                        .request(
                                outside.identity().id().orElseThrow(),
                                "upper",
                                "from behind the proxy".getBytes(StandardCharsets.UTF_8))
                        .get(10, TimeUnit.SECONDS))
                .asString(StandardCharsets.UTF_8)
                .isEqualTo("FROM BEHIND THE PROXY");
        assertThat(outside.sideChannel()
                        .request(
                                behindProxy.identity().id().orElseThrow(),
                                "lower",
                                "TO BEHIND THE PROXY".getBytes(StandardCharsets.UTF_8))
                        .get(10, TimeUnit.SECONDS))
                .asString(StandardCharsets.UTF_8)
                .isEqualTo("to behind the proxy");

        // A name bound over the session, connected to by name from outside; half-close both ways.
        try (TraverseServerSocket named = behindProxy.serverSocketFactory().createServerSocket("polled-db", 5432)) {
            CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(
                    () -> {
                        try (Socket s = named.accept()) {
                            return SeededStreams.exchange(
                                    s, threads, SeededStreams.EVEN, 4, 1024 * 1024, () -> 7 * 1024);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads);
            try (Socket s = outside.socketFactory().createSocket("polled-db", 5432)) {
                assertThat(SeededStreams.exchange(s, threads, SeededStreams.EVEN, 3, 1024 * 1024, () -> 7 * 1024))
                        .isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 4, 1024 * 1024));
            }
            assertThat(served.get(30, TimeUnit.SECONDS))
                    .isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 3, 1024 * 1024));
        }
        assertThat(exchange16MiB(behindProxy, outside, "longpoll")).isEqualTo("routed");
        assertThat(proxy.connectRequests())
                .as("CONNECT asked once, then remembered as refused")
                .isEqualTo(1);
        // Nothing can dial back to a node that only its proxy lets out: reverse does not even ask.
        java.net.ConnectException nowhere = org.assertj.core.api.Assertions.catchThrowableOfType(
                java.net.ConnectException.class,
                () -> behindProxy.socketFactory().createSocket("tv1-" + io.traverse.identity.NodeId.random(), 80));
        assertThat(nowhere)
                .hasMessageContaining("reverse: not tried (this node's only way out is HTTP proxy " + proxy.authority())
                .hasMessageContaining("routed: not tried (the hub link is a long-poll session; longpoll carries it)");
    }

    @Test
    void theFallbackThroughAProxyWithBasicAuthenticationSendsTheCredentials() throws Exception {
        LoopbackTinyproxy proxy = net.closeLater(LoopbackTinyproxy.start("ConnectPort 443", "BasicAuth alice s3cret"));
        Hub hub = net.hub("longpoll-auth-hub");
        Traverse behindProxy = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed", "longpoll")
                .httpProxy("alice:s3cret@" + proxy.authority())
                .nonProxyHosts("nothing.invalid")
                .build());
        assertThat(behindProxy.awaitHubLink(Duration.ofSeconds(15)))
                .as("%s", behindProxy.hubLinkStatus())
                .isTrue();
        assertThat(behindProxy.hubLongPollRoute()).isPresent();
        Traverse outside = plainNode(hub, "routed,longpoll");
        LoopbackHubNetwork.awaitRoute(outside, behindProxy);
        outside.sideChannel().register("echo", (from, payload) -> payload);
        assertThat(behindProxy
                        .sideChannel()
                        .request(outside.identity().id().orElseThrow(), "echo", new byte[] {1, 2, 3})
                        .get(10, TimeUnit.SECONDS))
                .containsExactly(1, 2, 3);
    }

    @Test
    void httpConnectionsCutMidTransferAreResumedWithNothingLostOrDoubled() throws Exception {
        Hub hub = net.hub("longpoll-cut-hub");
        SocketCutter cutter = net.closeLater(new SocketCutter(LoopbackHubNetwork.address(hub), threads));
        Traverse polling = net.node(LoopbackHubNetwork.config(hub)
                .hubs(java.util.List.of(cutter.address()))
                .modules("routed")
                .set("traverse.http.tunnel", "longpoll")
                .connectTimeout(Duration.ofSeconds(10))
                .hubKeepalive(Duration.ofSeconds(2))
                .build());
        assertThat(polling.awaitHubLink(Duration.ofSeconds(10)))
                .as("%s", polling.hubLinkStatus())
                .isTrue();
        Traverse outside = plainNode(hub, "routed");
        java.util.concurrent.atomic.AtomicInteger linksLost = new java.util.concurrent.atomic.AtomicInteger();
        polling.addListener(new io.traverse.TraverseListener() {
            @Override
            public void hubLinkLost(
                    io.traverse.identity.NodeId hubId, java.net.InetSocketAddress hubAddress, String reason) {
                linksLost.incrementAndGet();
            }
        });
        java.util.concurrent.atomic.AtomicBoolean cutting = new java.util.concurrent.atomic.AtomicBoolean(true);
        CompletableFuture<Void> cuts = CompletableFuture.runAsync(
                () -> {
                    while (cutting.get()) {
                        try {
                            Thread.sleep(150);
                        } catch (InterruptedException e) {
                            return;
                        }
                        cutter.cutAll();
                    }
                },
                threads);
        try {
            exchange16MiB(outside, polling, "routed");
            exchange16MiB(polling, outside, "routed");
        } finally {
            cutting.set(false);
            cuts.get(5, TimeUnit.SECONDS);
        }
        assertThat(cutter.cuts()).as("connections cut under the session").isGreaterThanOrEqualTo(6);
        assertThat(linksLost.get()).as("the hub link itself survived every cut").isZero();
        assertThat(hub.longPollSessions()).isEqualTo(1);
    }

    @Test
    void theLongPollModuleCarriesConnectionsOfALongPollNodeAndRoutedLeavesThemToIt() throws Exception {
        Hub hub = net.hub("longpoll-module-hub");
        Traverse polling = longPollNode(hub, "routed,longpoll");
        Traverse outside = plainNode(hub, "routed,longpoll");
        // Connected from the long-poll node: routed says why it leaves it; accepted there: reported as longpoll too.
        assertThat(exchange16MiB(polling, outside, "longpoll"))
                .as("accepted by the TCP-linked node")
                .isEqualTo("routed");
        assertThat(exchange16MiB(outside, polling, "routed"))
                .as("accepted by the long-poll node")
                .isEqualTo("longpoll");
        LoopbackHubNetwork.awaitRoute(polling, outside);
        // A node that is nowhere: every module of the chain fails or says why it did not try.
        String nowhere = "tv1-" + io.traverse.identity.NodeId.random();
        java.net.ConnectException nobody = org.assertj.core.api.Assertions.catchThrowableOfType(
                java.net.ConnectException.class, () -> polling.socketFactory().createSocket(nowhere, PORT + 1));
        assertThat(nobody)
                .hasMessageContaining("routed: not tried (the hub link is a long-poll session; longpoll carries it)");
        java.net.ConnectException fromOutside = org.assertj.core.api.Assertions.catchThrowableOfType(
                java.net.ConnectException.class, () -> outside.socketFactory().createSocket(nowhere, PORT + 1));
        assertThat(fromOutside)
                .hasMessageContaining("longpoll: not tried (the hub link is not a long-poll session (a TCP link to");
    }

    @Test
    void aNodeWithAFiveSecondBatchTimespanLinksAtOnceStaysLinkedAndCarriesData() throws Exception {
        // Before, every downstream step of the handshake waited for the timespan: two of them missed its 10 s limit.
        Hub hub = net.hub("longpoll-timespan-hub");
        long start = System.nanoTime();
        Traverse polling = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed", "longpoll")
                .set("traverse.http.tunnel", "longpoll")
                .set("traverse.longpoll.batch.timespan", "5s")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(polling.awaitHubLink(Duration.ofSeconds(10)))
                .as("linked by long-poll: %s", polling.hubLinkStatus())
                .isTrue();
        assertThat((System.nanoTime() - start) / 1_000_000)
                .as("the handshake's answers are not held for the timespan")
                .isLessThan(4000);
        java.util.concurrent.atomic.AtomicInteger linksLost = new java.util.concurrent.atomic.AtomicInteger();
        polling.addListener(new io.traverse.TraverseListener() {
            @Override
            public void hubLinkLost(
                    io.traverse.identity.NodeId hubId, java.net.InetSocketAddress hubAddress, String reason) {
                linksLost.incrementAndGet();
            }
        });
        Traverse outside = plainNode(hub, "routed,longpoll");
        // 1 MiB each way, length and SHA-256 checked, half-close; the last bytes toward the polling node wait up to a
        // timespan.
        assertThat(exchange(outside, polling, "routed", 1024 * 1024)).isEqualTo("longpoll");
        assertThat(exchange(polling, outside, "longpoll", 1024 * 1024)).isEqualTo("routed");
        // The hub's keepalive (300 ms here; 3 silent intervals end a node's link) went through at once all along.
        assertThat(linksLost.get()).as("the link was never lost").isZero();
        assertThat(polling.hubLongPollRoute()).isPresent();
    }

    /** Returns the module the server's side reports for the accepted connection. */
    String exchange16MiB(Traverse client, Traverse server, String module) throws Exception {
        return exchange(client, server, module, BYTES);
    }

    /** {@code bytes} each way, checked by length and SHA-256; returns the module the server's side reports for the accepted connection. */
    String exchange(Traverse client, Traverse server, String module, int bytes) throws Exception {
        LoopbackHubNetwork.awaitRoute(client, server);
        java.util.concurrent.atomic.AtomicReference<String> accepted =
                new java.util.concurrent.atomic.AtomicReference<>();
        try (TraverseServerSocket listening = server.serverSocketFactory().createServerSocket(PORT)) {
            CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(
                    () -> {
                        try (Socket s = listening.accept()) {
                            accepted.set(server.connectionInfo(s).orElseThrow().module());
                            return SeededStreams.exchange(s, threads, SeededStreams.EVEN, 2, bytes, () -> 29 * 1024);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads);
            VirtualSocketAddress to = server.address(PORT);
            try (Socket s = client.socketFactory().createSocket(to.getHostString(), to.getPort())) {
                assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo(module);
                byte[] received = SeededStreams.exchange(s, threads, SeededStreams.EVEN, 1, bytes, () -> 29 * 1024);
                assertThat(received).isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 2, bytes));
            }
            assertThat(served.get(60, TimeUnit.SECONDS))
                    .isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 1, bytes));
        }
        return accepted.get();
    }
}
