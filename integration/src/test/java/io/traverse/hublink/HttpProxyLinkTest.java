package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.HubLinkStatus;
import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose hub link and data link go through a real HTTP proxy (tinyproxy on loopback):
 * it links with CONNECT, relays 16 MiB each way (SHA-256, half-close) as client and
 * as server, authenticates with basic auth, and when the proxy refuses CONNECT it says so —
 * naming the proxy and its status line — and keeps retrying.
 */
class HttpProxyLinkTest {
    private static final int BYTES = 16 * 1024 * 1024;
    private static final int PORT = 4300;
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private final ExecutorService threads = net.threads();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    /** A node that reaches {@code hub} only through {@code proxy} (loopback is not exempt here). */
    private Traverse proxiedNode(Hub hub, String proxy) throws Exception {
        return net.node(LoopbackHubNetwork.config(hub)
                .modules("routed")
                .httpProxy(proxy)
                .nonProxyHosts("nothing.invalid")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
    }

    private Traverse plainNode(Hub hub) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    @Test
    void theLinkAndTheDataLinkGoThroughConnectAndCarry16MiBEachWayBothDirections() throws Exception {
        LoopbackTinyproxy proxy = net.closeLater(LoopbackTinyproxy.start());
        Hub hub = net.hub("proxy-hub");
        Traverse behindProxy = proxiedNode(hub, proxy.authority());
        assertThat(behindProxy.awaitHubLink(Duration.ofSeconds(10)))
                .as("linked through %s: %s", proxy.authority(), behindProxy.hubLinkStatus())
                .isTrue();
        Traverse outside = plainNode(hub);
        assertThat(behindProxy.hubProxyAnswer())
                .hasValueSatisfying(
                        a -> assertThat(a).contains(proxy.authority()).contains(" 200 "));
        assertThat(proxy.connectRequests())
                .as("CONNECTs for the hub link and the data link")
                .isGreaterThanOrEqualTo(2);

        // Accepted by the node behind the proxy, then connected from it.
        exchange16MiB(outside, behindProxy);
        exchange16MiB(behindProxy, outside);
    }

    private void exchange16MiB(Traverse client, Traverse server) throws Exception {
        LoopbackHubNetwork.awaitRoute(client, server);
        try (TraverseServerSocket listening = server.serverSocketFactory().createServerSocket(PORT)) {
            CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(
                    () -> {
                        try (Socket s = listening.accept()) {
                            return SeededStreams.exchange(s, threads, SeededStreams.EVEN, 2, BYTES, () -> 29 * 1024);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads);
            VirtualSocketAddress to = server.address(PORT);
            try (Socket s = client.socketFactory().createSocket(to.getHostString(), to.getPort())) {
                assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo("routed");
                byte[] received = SeededStreams.exchange(s, threads, SeededStreams.EVEN, 1, BYTES, () -> 29 * 1024);
                assertThat(received).isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 2, BYTES));
            }
            assertThat(served.get(60, TimeUnit.SECONDS))
                    .isEqualTo(SeededStreams.expectedDigest(SeededStreams.EVEN, 1, BYTES));
        }
    }

    @Test
    void basicAuthenticationOpensTheTunnelAndAWrongPasswordIsNamedAsSuch() throws Exception {
        LoopbackTinyproxy proxy = net.closeLater(LoopbackTinyproxy.start("BasicAuth alice s3cret"));
        Hub hub = net.hub("proxy-auth-hub");
        Traverse good = proxiedNode(hub, "alice:s3cret@" + proxy.authority());
        assertThat(good.awaitHubLink(Duration.ofSeconds(10)))
                .as("%s", good.hubLinkStatus())
                .isTrue();

        Traverse bad = proxiedNode(hub, "alice:wrong@" + proxy.authority());
        await().atMost(Duration.ofSeconds(10)).until(() -> bad.hubLinkStatus().lastFailure() != null);
        assertThat(bad.hubLinkStatus().state()).isEqualTo(HubLinkStatus.State.CONNECTING);
        assertThat(bad.hubLinkStatus().lastFailure())
                .contains("HTTP proxy " + proxy.authority())
                .containsAnyOf(" 401 ", " 407 ")
                .contains("valid user and password")
                .doesNotContain("wrong");
    }

    @Test
    void aRefusedConnectNamesTheProxyAndItsStatusLineAndTheLinkKeepsRetrying() throws Exception {
        LoopbackTinyproxy proxy = net.closeLater(LoopbackTinyproxy.start("ConnectPort 443"));
        Hub hub = net.hub("proxy-refusing-hub");
        // CONNECT only: with the default (auto) a refused CONNECT falls back on a long-poll session (LongPollLinkTest)
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed")
                .httpProxy(proxy.authority())
                .nonProxyHosts("nothing.invalid")
                .set("traverse.http.tunnel", "connect")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        await().atMost(Duration.ofSeconds(10)).until(() -> node.hubLinkStatus().lastFailure() != null);
        HubLinkStatus status = node.hubLinkStatus();
        assertThat(status.state()).isEqualTo(HubLinkStatus.State.CONNECTING);
        assertThat(status.lastFailure())
                .contains("HTTP proxy " + proxy.authority())
                .contains("refused CONNECT to hub "
                        + LoopbackHubNetwork.address(hub).getAddress().getHostAddress() + ":"
                        + LoopbackHubNetwork.address(hub).getPort())
                .contains("'HTTP/1.1 403 Access violation'");
        assertThat(node.hubProxyAnswer()).hasValueSatisfying(a -> assertThat(a).contains("403"));
        // Backoff as without a proxy: it asks again (500 ms, then 1 s, ...), and never links.
        long first = proxy.connectRequests();
        await().atMost(Duration.ofSeconds(10)).until(() -> proxy.connectRequests() > first);
        assertThat(node.awaitHubLink(Duration.ofMillis(200))).isFalse();
    }

    @Test
    void aProxyThatIsNotThereIsNamedInTheFailure() throws Exception {
        Hub hub = net.hub("proxy-absent-hub");
        int unused;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            unused = s.getLocalPort();
        }
        Traverse node = proxiedNode(hub, "127.0.0.1:" + unused);
        await().atMost(Duration.ofSeconds(10)).until(() -> node.hubLinkStatus().lastFailure() != null);
        assertThat(node.hubLinkStatus().lastFailure())
                .contains("cannot reach HTTP proxy 127.0.0.1:" + unused)
                .contains("for hub");
    }
}
