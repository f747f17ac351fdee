package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.ConnectionInfo;
import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.firewall.FirewallRule;
import io.traverse.hub.Hub;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The reverse module on real hubs: a node behind a (simulated) firewall is reached by dialling back. */
class ReverseConnectionTest {
    private static final int DATA = 4 * 1024 * 1024;
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    private Traverse node(Hub hub, FirewallRule... rules) throws Exception {
        return node(hub, "relayed", rules);
    }

    private Traverse node(Hub hub, String encrypt, FirewallRule... rules) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules("direct", "reverse")
                .set("traverse.encrypt", encrypt)
                .firewall(rules)
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    @Test
    void aNodeBehindAFirewallIsReachedByDiallingBackAndDataCrossesBothWays() throws Exception {
        Hub hub = net.hub("reverse-hub");
        Traverse server = node(hub, FirewallRule.deny("all"));
        Traverse client = node(hub);
        TraverseServerSocket listening = listen(server, 0);
        VirtualSocketAddress target = addressOf(listening);

        // The first connection's reverse attempt is the race's second (after direct), so its dial-back is held
        // until confirmed; the second starts with the cached reverse alone, so the target hands it over unheld.
        assertThat(exchangeBothWays(listening, client, target, 1)).isFalse();
        assertThat(exchangeBothWays(listening, client, target, 3)).isTrue();
    }

    /**
     * One reverse connection carrying DATA bytes each way, each checked by length and digest, with a
     * half-close each way; returns whether the module was the cached one.
     */
    private static boolean exchangeBothWays(
            TraverseServerSocket listening, Traverse client, VirtualSocketAddress target, long seed) throws Exception {
        CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(() -> {
            try (Socket s = listening.accept()) {
                // Reads the client's data to EOF (its half-close), answers with length and digest, then sends its own.
                byte[] digest = digestToEof(s.getInputStream());
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.write(digest);
                byte[] mine = randomBytes(seed + 1, DATA);
                out.write(mine);
                out.flush();
                s.shutdownOutput();
                return digest;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        boolean cached;
        try (Socket s = connect(client, target)) {
            ConnectionInfo info = client.connectionInfo(s).orElseThrow();
            assertThat(info.module()).isEqualTo("reverse");
            cached = info.cachedModule();
            byte[] sent = randomBytes(seed, DATA);
            OutputStream out = s.getOutputStream();
            out.write(sent);
            s.shutdownOutput();
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] theirDigestOfMine = in.readNBytes(32 + 8);
            assertThat(theirDigestOfMine).isEqualTo(digestOf(sent));
            byte[] received = in.readAllBytes();
            assertThat(received.length).isEqualTo(DATA);
            assertThat(digestOf(received)).isEqualTo(digestOf(randomBytes(seed + 1, DATA)));
        }
        assertThat(served.get(30, TimeUnit.SECONDS)).isNotEmpty();
        return cached;
    }

    @ParameterizedTest(name = "client {0}, server {1}")
    @CsvSource({"all, all", "all, relayed", "relayed, all"})
    void withEncryptAllOnEitherNodeTheDialBackRunsTlsBoundToBothNodesKeys(String clientEncrypt, String serverEncrypt)
            throws Exception {
        Hub hub = net.hub("reverse-hub-tls-" + clientEncrypt + "-" + serverEncrypt);
        Traverse server = node(hub, serverEncrypt, FirewallRule.deny("all"));
        Traverse client = node(hub, clientEncrypt);
        TraverseServerSocket listening = listen(server, 0);
        VirtualSocketAddress target = addressOf(listening);

        // Held (the first, beside direct), then cached and unheld: TLS starts after CONFIRM in the one, at once in the
        // other.
        assertThat(exchangeBothWays(listening, client, target, 11)).isFalse();
        assertThat(exchangeBothWays(listening, client, target, 13)).isTrue();
        CompletableFuture<Socket> accepted = CompletableFuture.supplyAsync(() -> {
            try {
                Socket a = listening.accept();
                a.getOutputStream().write(a.getInputStream().read());
                return a;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        try (Socket s = connect(client, target)) {
            s.getOutputStream().write(42);
            assertThat(s.getInputStream().read()).isEqualTo(42);
            assertThat(s).isInstanceOf(javax.net.ssl.SSLSocket.class);
            assertThat(client.connectionInfo(s).orElseThrow().protection()).isEqualTo(io.traverse.Protection.TLS);
            try (Socket a = accepted.get(10, TimeUnit.SECONDS)) {
                assertThat(a).isInstanceOf(javax.net.ssl.SSLSocket.class);
                assertThat(server.connectionInfo(a).orElseThrow().module()).isEqualTo("reverse");
                assertThat(server.connectionInfo(a).orElseThrow().protection()).isEqualTo(io.traverse.Protection.TLS);
                assertThat(io.traverse.security.LinkTls.peerId(((javax.net.ssl.SSLSocket) a).getSession()))
                        .isEqualTo(client.identity().id().orElseThrow());
            }
        }
    }

    @Test
    void whenNeitherSideCanBeDialledTheChainSaysWhy() throws Exception {
        Hub hub = net.hub("reverse-hub-2");
        Traverse server = node(hub, FirewallRule.deny("all"));
        Traverse client = node(hub, FirewallRule.deny("all"));
        TraverseServerSocket listening = listen(server, 0);
        VirtualSocketAddress target = addressOf(listening);
        long start = System.nanoTime();
        assertThatThrownBy(() -> connect(client, target))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("refused")
                .hasMessageContaining("could not dial back");
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("both answers are definite: no timeout")
                .isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aPortNobodyListensOnIsADefinitiveAnswerFromTheTarget() throws Exception {
        Hub hub = net.hub("reverse-hub-3");
        Traverse server = node(hub, FirewallRule.deny("all"));
        Traverse client = node(hub);
        VirtualSocketAddress target = server.address(4001);
        assertThatThrownBy(() -> connect(client, target))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("nothing listens on virtual port 4001");
        // and nothing was queued at the server for the port that does not exist
        try (TraverseServerSocket later = server.serverSocketFactory().createServerSocket(4001)) {
            later.setSoTimeout(300);
            assertThatThrownBy(later::accept).isInstanceOf(java.net.SocketTimeoutException.class);
        }
    }

    @Test
    void behindAFirewallThatDropsSilentlyReverseWinsLongBeforeTheDirectTimeout() throws Exception {
        Hub hub = net.hub("reverse-hub-4");
        Traverse server = node(hub, FirewallRule.drop("all"));
        Traverse client = node(hub);
        TraverseServerSocket listening = listen(server, 0);
        VirtualSocketAddress target = addressOf(listening);
        long start = System.nanoTime();
        try (Socket s = connect(client, target);
                Socket accepted = listening.accept()) {
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("the direct attempt alone would wait 10 s")
                    .isLessThan(Duration.ofSeconds(5));
            assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo("reverse");
            s.getOutputStream().write(42);
            assertThat(accepted.getInputStream().read()).isEqualTo(42);
        }
    }

    @Test
    void theNextNodeBehindTheSameHubStartsWithTheModuleThatWorked() throws Exception {
        Hub hub = net.hub("reverse-hub-5");
        Traverse first = node(hub, FirewallRule.deny("all"));
        Traverse second = node(hub, FirewallRule.deny("all"));
        Traverse client = node(hub);
        TraverseServerSocket one = listen(first, 0);
        TraverseServerSocket two = listen(second, 0);
        VirtualSocketAddress a = addressOf(one);
        VirtualSocketAddress b = addressOf(two);
        try (Socket s = connect(client, a)) {
            ConnectionInfo info = client.connectionInfo(s).orElseThrow();
            assertThat(info.module()).isEqualTo("reverse");
            assertThat(info.cachedModule()).isFalse();
        }
        try (Socket s = connect(client, b)) {
            ConnectionInfo info = client.connectionInfo(s).orElseThrow();
            assertThat(info.module()).isEqualTo("reverse");
            assertThat(info.cachedModule())
                    .as("another node, same hub: the cache names reverse")
                    .isTrue();
        }
    }

    @Test
    void racingLeavesNoSocketsBehind() throws Exception {
        Hub hub = net.hub("reverse-hub-6");
        // The target drops silently: every connection races a pending direct attempt (cancelled) against reverse.
        Traverse server = net.node(LoopbackHubNetwork.config(hub)
                .modules("direct", "reverse")
                .firewall(FirewallRule.drop("all"))
                .handshakeTimeout(Duration.ofMillis(500))
                .build());
        // No cache (each connection starts with direct again), and reverse 10 ms after direct instead of
        // 100 ms, so that 300 races, each with a direct attempt to cancel, fit in a test.
        Traverse client = net.node(LoopbackHubNetwork.config(hub)
                .modules("direct", "reverse")
                .connectStagger(Duration.ofMillis(10))
                .cacheTtl(Duration.ZERO)
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(client.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        assertThat(server.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        TraverseServerSocket listening = listen(server, 0);
        Thread acceptor = new Thread(() -> {
            while (!listening.isClosed()) {
                try (Socket s = listening.accept()) {
                    s.getInputStream().read();
                } catch (java.io.IOException closed) {
                    // the end of the test, or a connection the client already closed
                }
            }
        });
        acceptor.setDaemon(true);
        acceptor.start();
        VirtualSocketAddress target = addressOf(listening);
        for (int i = 0; i < 5; i++) { // threads, selectors and caches that stay: made before counting
            connect(client, target).close();
        }
        long before = openFileDescriptors();
        for (int i = 0; i < 300; i++) {
            try (Socket s = connect(client, target)) {
                s.getOutputStream().write(1);
                assertThat(client.connectionInfo(s).orElseThrow().cachedModule())
                        .isFalse();
            }
        }
        // The target closes the dropped handshakes after its 500 ms handshake timeout.
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(openFileDescriptors()).isLessThanOrEqualTo(before + 8));
    }

    @Test
    void aHundredConcurrentConnectionsToANodeBehindAFirewallAllGetThrough() throws Exception {
        Hub hub = net.hub("reverse-hub-7");
        Traverse server = node(hub, FirewallRule.deny("all"));
        Traverse client = node(hub);
        TraverseServerSocket listening = listen(server, 200);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(100);
        java.util.concurrent.ExecutorService echoes = java.util.concurrent.Executors.newCachedThreadPool();
        try {
            Thread acceptor = new Thread(() -> {
                while (!listening.isClosed()) {
                    try {
                        Socket s = listening.accept();
                        echoes.execute(() -> {
                            try (s) {
                                int b = s.getInputStream().read();
                                s.getOutputStream().write(b);
                            } catch (java.io.IOException ignored) {
                                // the client side fails the test
                            }
                        });
                    } catch (java.io.IOException | java.util.concurrent.RejectedExecutionException closed) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            VirtualSocketAddress target = addressOf(listening);
            java.util.List<CompletableFuture<String>> all = new java.util.ArrayList<>();
            for (int i = 0; i < 100; i++) {
                int n = i;
                all.add(CompletableFuture.supplyAsync(
                        () -> {
                            try (Socket s = connect(client, target)) {
                                s.getOutputStream().write(n);
                                return s.getInputStream().read() == n
                                        ? client.connectionInfo(s).orElseThrow().module()
                                        : "wrong echo";
                            } catch (java.io.IOException e) {
                                return "failed: " + e.getMessage();
                            }
                        },
                        pool));
            }
            for (CompletableFuture<String> f : all) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo("reverse");
            }
        } finally {
            pool.shutdownNow();
            echoes.shutdownNow();
        }
    }

    @Test
    void dialBacksToAnUnreachableNodeDoNotHoldUpOthers() throws Exception {
        Hub hub = net.hub("reverse-hub-8");
        Traverse server = net.node(LoopbackHubNetwork.config(hub)
                .modules("direct", "reverse")
                .firewall(FirewallRule.deny("all"))
                .connectTimeout(Duration.ofSeconds(6))
                .build());
        assertThat(server.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        // This client drops everything: each dial-back to it hangs until the server's 6 s connect timeout.
        Traverse unreachable = node(hub, FirewallRule.drop("all"));
        Traverse client = node(hub);
        TraverseServerSocket listening = listen(server, 0);
        VirtualSocketAddress target = addressOf(listening);
        java.util.concurrent.ExecutorService hanging = java.util.concurrent.Executors.newCachedThreadPool();
        try {
            for (int i = 0; i < 8; i++) { // more than the side channel's handler threads
                hanging.execute(() -> {
                    try (Socket s = connect(unreachable, target)) {
                        s.getOutputStream().write(0);
                    } catch (java.io.IOException expected) {
                        // neither side can reach the other
                    }
                });
            }
            Thread.sleep(300); // the eight dial-backs are under way
            long start = System.nanoTime();
            try (Socket s = connect(client, target);
                    Socket accepted = listening.accept()) {
                assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo("reverse");
                assertThat(Duration.ofNanos(System.nanoTime() - start))
                        .as("not queued behind the hanging dial-backs (6 s each)")
                        .isLessThan(Duration.ofSeconds(3));
            }
        } finally {
            hanging.shutdownNow();
        }
    }

    @Test
    void aFullBacklogAtTheTargetIsADefinitiveAnswerAndNoHalfConnectionIsReturned() throws Exception {
        Hub hub = net.hub("reverse-hub-9");
        Traverse server = node(hub, FirewallRule.deny("all"));
        Traverse client = node(hub);
        TraverseServerSocket listening = listen(server, 1);
        VirtualSocketAddress target = addressOf(listening);
        try (Socket first = connect(client, target)) {
            // nobody accepts: the backlog of one is taken by the first
            assertThatThrownBy(() -> connect(client, target))
                    .isInstanceOf(ConnectException.class)
                    .hasMessageContaining("backlog of virtual port 4000 is full");
            try (Socket accepted = listening.accept()) {
                first.getOutputStream().write(9);
                assertThat(accepted.getInputStream().read()).isEqualTo(9);
            }
        }
    }

    @Test
    void aDialBackRequestNamingManyAddressesIsRefused() throws Exception {
        Hub hub = net.hub("reverse-hub-10");
        Traverse server = node(hub, FirewallRule.deny("all"));
        Traverse client = node(hub);
        listen(server, 0);
        io.traverse.identity.NodeIdentity.Builder many = io.traverse.identity.NodeIdentity.builder()
                .id(client.identity().id().orElseThrow());
        for (int i = 1; i <= 9; i++) {
            many.address(new java.net.InetSocketAddress("10.9.9." + i, 7000));
        }
        byte[] identity = many.build().toText().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] request = java.nio.ByteBuffer.allocate(2 + 16 + 2 + 4 + identity.length)
                .put((byte) 5) // version 5
                .put((byte) 0) // flags
                .put(new byte[16])
                .putShort((short) 4000)
                .putInt(5000)
                .put(identity)
                .array();
        byte[] answer = client.sideChannel()
                .request(server.identity().id().orElseThrow(), "traverse.reverse", request, Duration.ofSeconds(10))
                .get(15, TimeUnit.SECONDS);
        assertThat(answer[0]).as("BAD_REQUEST").isEqualTo((byte) 3);
        assertThat(new String(answer, 1, answer.length - 1, java.nio.charset.StandardCharsets.UTF_8))
                .contains("at most 8");

        request[0] = 4; // a node of the version before: it would take the token itself back on the dial-back
        byte[] older = client.sideChannel()
                .request(server.identity().id().orElseThrow(), "traverse.reverse", request, Duration.ofSeconds(10))
                .get(15, TimeUnit.SECONDS);
        assertThat(older[0]).as("BAD_REQUEST").isEqualTo((byte) 3);
        assertThat(new String(older, 1, older.length - 1, java.nio.charset.StandardCharsets.UTF_8))
                .contains("version 4");
    }

    private static long openFileDescriptors() throws java.io.IOException {
        try (java.util.stream.Stream<java.nio.file.Path> fds =
                java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    /** A server socket on virtual port 4000, closed after the test (backlog 0: the default). */
    private TraverseServerSocket listen(Traverse server, int backlog) throws Exception {
        return net.closeLater(server.serverSocketFactory().createServerSocket(4000, backlog));
    }

    private static VirtualSocketAddress addressOf(TraverseServerSocket listening) {
        return (VirtualSocketAddress) listening.getLocalSocketAddress();
    }

    /** Connects as an application would: the address's host string and port. */
    private static Socket connect(Traverse from, VirtualSocketAddress to) throws java.io.IOException {
        return from.socketFactory().createSocket(to.getHostString(), to.getPort());
    }

    private static byte[] randomBytes(long seed, int length) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    /** SHA-256 of a byte array followed by its length (8 bytes). */
    private static byte[] digestOf(byte[] data) throws Exception {
        return SeededStreams.withLength(MessageDigest.getInstance("SHA-256").digest(data), data.length);
    }

    private static byte[] digestToEof(InputStream in) throws Exception {
        return SeededStreams.digestToEof(in, () -> 64 * 1024);
    }
}
