package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The routed module on real hubs: virtual connections relayed through one, two and three hubs in
 * a line, with the data checked end to end (length and SHA-256), half-close, reset, read timeout,
 * a stalled reader among 100 connections and a hub that dies mid-stream.
 */
class RoutedConnectionTest {
    private static final int PORT = 4100;
    /** Reads of an odd size, as the writes are. */
    private static final int READ_SIZE = 37 * 1024;

    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private final ExecutorService threads = net.threads();

    @AfterEach
    void closeAll() throws Exception {
        net.close();
    }

    private Traverse node(Hub hub) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    @ParameterizedTest(name = "through {0} hub(s)")
    @ValueSource(ints = {1, 2, 3})
    void sixtyFourMebibytesCrossEachWayAtOnceThenBothHalfClose(int hubs) throws Exception {
        int bytes = 64 * 1024 * 1024;
        List<Hub> line = net.line("routed-", hubs);
        Traverse server = node(line.get(hubs - 1));
        Traverse client = node(line.get(0));
        LoopbackHubNetwork.awaitRoute(client, server);
        TraverseServerSocket listening = listen(server);

        CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(
                () -> {
                    try (Socket s = listening.accept()) {
                        return exchange(s, 2, bytes);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        try (Socket s = connect(client, addressOf(listening))) {
            assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo("routed");
            byte[] receivedByClient = exchange(s, 1, bytes);
            assertThat(receivedByClient).isEqualTo(expectedDigest(2, bytes));
        }
        assertThat(served.get(120, TimeUnit.SECONDS)).isEqualTo(expectedDigest(1, bytes));
    }

    @Test
    void afterAHalfCloseThePeerReadsEofAndMayStillAnswer() throws Exception {
        Hub hub = net.hub("routed-half");
        Traverse server = node(hub);
        Traverse client = node(hub);
        TraverseServerSocket listening = listen(server);
        CompletableFuture<Void> served = CompletableFuture.runAsync(
                () -> {
                    try (Socket s = listening.accept()) {
                        byte[] question = s.getInputStream().readAllBytes();
                        assertThat(s.getInputStream().read())
                                .as("EOF stays EOF")
                                .isEqualTo(-1);
                        s.getOutputStream().write(("answer to " + new String(question)).getBytes());
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        try (Socket s = connect(client, addressOf(listening))) {
            s.getOutputStream().write("question".getBytes());
            s.shutdownOutput();
            assertThat(s.isOutputShutdown()).isTrue();
            assertThatThrownBy(() -> s.getOutputStream().write(1)).isInstanceOf(SocketException.class);
            assertThat(new String(s.getInputStream().readAllBytes())).isEqualTo("answer to question");
        }
        served.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aReadTimesOutAndTheConnectionGoesOnWorking() throws Exception {
        Hub hub = net.hub("routed-timeout");
        Traverse server = node(hub);
        Traverse client = node(hub);
        TraverseServerSocket listening = listen(server);
        try (Socket s = connect(client, addressOf(listening));
                Socket accepted = listening.accept()) {
            s.setSoTimeout(200);
            long start = System.nanoTime();
            assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isBetween(Duration.ofMillis(190), Duration.ofSeconds(3));
            accepted.getOutputStream().write(7);
            assertThat(s.getInputStream().read()).isEqualTo(7);
        }
    }

    @Test
    void closingWithUnreadDataResetsTheOtherEnd() throws Exception {
        Hub hub = net.hub("routed-reset");
        Traverse server = node(hub);
        Traverse client = node(hub);
        TraverseServerSocket listening = listen(server);
        try (Socket s = connect(client, addressOf(listening))) {
            Socket accepted = listening.accept();
            s.getOutputStream().write(new byte[1000]);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> accepted.getInputStream().available() == 1000);
            accepted.close();
            s.setSoTimeout(5000);
            assertThatThrownBy(() -> s.getInputStream().read())
                    .isInstanceOf(SocketException.class)
                    .hasMessageContaining("Connection reset")
                    .hasMessageContaining("unread data");
            assertThatThrownBy(() -> s.getOutputStream().write(1))
                    .isInstanceOf(SocketException.class)
                    .hasMessageContaining("Connection reset");
        }
    }

    /**
     * A socket from {@code createSocket()}, connected later (as JDBC drivers do), passes its options to
     * the routed socket by {@code setOption}/{@code getOption}: each answers as the typed methods do on
     * a routed socket itself. An {@code SSLSocket} layered over it asks for SO_LINGER when it closes
     * (pgjdbc over routed failed there), and SO_LINGER 0 still makes close a reset.
     */
    @Test
    void anUnconnectedFactorySocketSetsAndReadsEveryOptionThenLingerZeroResets() throws Exception {
        Hub hub = net.hub("routed-options");
        Traverse server = node(hub);
        Traverse client = node(hub);
        TraverseServerSocket listening = listen(server);
        try (Socket s = client.socketFactory().createSocket()) {
            s.connect(addressOf(listening), 10_000);
            Socket accepted = net.closeLater(listening.accept());
            assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo("routed");
            assertThat(s.getSoLinger()).isEqualTo(-1);
            assertThat(s.getTrafficClass()).isZero();
            assertThat(s.getReuseAddress()).isFalse();
            assertThat(s.getSendBufferSize()).isPositive();
            assertThat(s.getReceiveBufferSize()).isPositive();
            s.setTrafficClass(0x10);
            s.setReuseAddress(true);
            s.setSendBufferSize(1 << 16);
            s.setReceiveBufferSize(1 << 16);
            s.setSoLinger(true, 5);
            assertThat(s.getSoLinger()).isEqualTo(5);
            assertThat(s.getTrafficClass()).isEqualTo(0x10);
            s.setSoLinger(false, 0);
            assertThat(s.getSoLinger()).isEqualTo(-1);

            s.setSoLinger(true, 0);
            s.close();
            accepted.setSoTimeout(5000);
            assertThatThrownBy(() -> accepted.getInputStream().read())
                    .isInstanceOf(SocketException.class)
                    .hasMessageContaining("Connection reset");
        }
    }

    @Test
    void aPortNobodyListensOnIsRefusedAtOnceWithTheTargetsReason() throws Exception {
        Hub hub = net.hub("routed-refused");
        Traverse server = node(hub);
        Traverse client = node(hub);
        long start = System.nanoTime();
        assertThatThrownBy(() -> connect(client, server.address(4999)))
                .isInstanceOf(ConnectException.class)
                .hasMessageContaining("no virtual port")
                .hasMessageContaining("4999");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aStalledReaderAmongAHundredConnectionsSlowsNoOther() throws Exception {
        int connections = 100;
        int bytes = 1024 * 1024;
        Hub hub = net.hub("routed-stall");
        Traverse server = node(hub);
        Traverse client = node(hub);
        TraverseServerSocket listening =
                net.closeLater(server.serverSocketFactory().createServerSocket(PORT, connections));
        List<Socket> clientSockets = new ArrayList<>();
        List<Socket> accepted = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            clientSockets.add(net.closeLater(connect(client, addressOf(listening))));
            accepted.add(net.closeLater(listening.accept()));
        }
        // Connection 0's reader never reads: its writer fills the window and waits.
        CompletableFuture<Void> stalledWriter = CompletableFuture.runAsync(
                () -> {
                    try {
                        clientSockets.get(0).getOutputStream().write(new byte[8 * 1024 * 1024]);
                    } catch (IOException e) {
                        // the socket is closed at the end of the test
                    }
                },
                threads);
        List<CompletableFuture<byte[]>> readers = new ArrayList<>();
        for (int i = 1; i < connections; i++) {
            Socket in = accepted.get(i);
            readers.add(CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return digestToEof(in.getInputStream());
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads));
            Socket out = clientSockets.get(i);
            long seed = i;
            CompletableFuture.runAsync(
                    () -> {
                        try {
                            writeStream(out.getOutputStream(), seed, bytes);
                            out.shutdownOutput();
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads);
        }
        for (int i = 1; i < connections; i++) {
            assertThat(readers.get(i - 1).get(60, TimeUnit.SECONDS))
                    .as("connection %d", i)
                    .isEqualTo(expectedDigest(i, bytes));
        }
        assertThat(stalledWriter)
                .as("the stalled connection's writer waits for credit")
                .isNotDone();
    }

    @Test
    void aThousandRelayedConnectionsAtOnceNeedNoThreadEach() throws Exception {
        int connections = 1000;
        Hub hub = net.hub("routed-thousand");
        Traverse server = node(hub);
        Traverse client = node(hub);
        TraverseServerSocket listening =
                net.closeLater(server.serverSocketFactory().createServerSocket(PORT, connections));
        // Warm up the pools the connect path uses, so that only per-connection threads would show.
        try (Socket first = connect(client, addressOf(listening));
                Socket firstAccepted = listening.accept()) {
            first.getOutputStream().write(1);
            assertThat(firstAccepted.getInputStream().read()).isEqualTo(1);
        }
        int threadsBefore =
                java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
        long hubThreadsBefore = hubThreads();
        List<Socket> clients = new ArrayList<>();
        List<Socket> accepted = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            clients.add(net.closeLater(connect(client, addressOf(listening))));
            accepted.add(net.closeLater(listening.accept()));
        }
        // Every connection carries a byte each way while all of them are open.
        for (int i = 0; i < connections; i++) {
            clients.get(i).getOutputStream().write(i & 0xff);
        }
        for (int i = 0; i < connections; i++) {
            Socket s = accepted.get(i);
            s.setSoTimeout(10_000);
            int b = s.getInputStream().read();
            s.getOutputStream().write(b);
        }
        for (int i = 0; i < connections; i++) {
            Socket s = clients.get(i);
            s.setSoTimeout(10_000);
            assertThat(s.getInputStream().read()).as("connection %d", i).isEqualTo(i & 0xff);
        }
        int threadsDuring =
                java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
        assertThat(threadsDuring - threadsBefore)
                .as("threads added for %d open relayed connections", connections)
                .isLessThan(20);
        assertThat(hubThreads()).as("the hub's threads").isEqualTo(hubThreadsBefore);
    }

    /** Threads of the hubs in this JVM (their names start with traverse-hub, not traverse-hublink). */
    private static long hubThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t ->
                        t.getName().startsWith("traverse-hub") && !t.getName().startsWith("traverse-hublink"))
                .count();
    }

    @Test
    void whenTheHubInTheMiddleDiesBothEndsFailPromptly() throws Exception {
        List<Hub> line = net.line("routed-", 3);
        Traverse server = node(line.get(2));
        Traverse client = node(line.get(0));
        LoopbackHubNetwork.awaitRoute(client, server);
        TraverseServerSocket listening = listen(server);
        Socket s = net.closeLater(connect(client, addressOf(listening)));
        Socket accepted = net.closeLater(listening.accept());
        // The client streams; the server reads. Both are mid-stream when the middle hub goes.
        CompletableFuture<Throwable> writer = CompletableFuture.supplyAsync(
                () -> failureOf(() -> {
                    byte[] chunk = new byte[64 * 1024];
                    OutputStream out = s.getOutputStream();
                    while (true) {
                        out.write(chunk);
                    }
                }),
                threads);
        CompletableFuture<Throwable> reader = CompletableFuture.supplyAsync(
                () -> failureOf(() -> {
                    byte[] buffer = new byte[64 * 1024];
                    InputStream in = accepted.getInputStream();
                    while (in.read(buffer) >= 0) {
                        // keep reading
                    }
                    throw new IllegalStateException("EOF instead of an exception");
                }),
                threads);
        Thread.sleep(300);
        assertThat(writer).isNotDone();
        long killed = System.nanoTime();
        line.get(1).close();
        assertThat(writer.get(10, TimeUnit.SECONDS)).isInstanceOf(IOException.class);
        assertThat(reader.get(10, TimeUnit.SECONDS))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("Connection reset");
        assertThat(Duration.ofNanos(System.nanoTime() - killed))
                .as("both ends know within a few seconds")
                .isLessThan(Duration.ofSeconds(5));
    }

    private interface Body {
        void run() throws Exception;
    }

    private static Throwable failureOf(Body body) {
        try {
            body.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /**
     * Relayed connections are sealed end to end, and the two nodes keep their agreement: a server
     * that restarts with its key (same id) has lost it, so the client's next connection resumes a
     * secret the server no longer keeps, is told so, and agrees afresh, unseen by the application.
     */
    @Test
    void aServerThatRestartsWithItsKeyIsReachedAgainAfterAFreshKeyAgreement(@TempDir Path dir) throws Exception {
        Hub hub = net.hub("routed-restart");
        Traverse client = node(hub);
        TraverseConfig serverConfig = LoopbackHubNetwork.config(hub)
                .modules("routed")
                .set("traverse.key", dir.resolve("server.key").toString())
                .build();
        for (int life = 0; life < 2; life++) {
            Traverse server = net.node(serverConfig);
            assertThat(server.awaitHubLink(Duration.ofSeconds(10))).isTrue();
            TraverseServerSocket listening = server.serverSocketFactory().createServerSocket(PORT);
            for (int i = 0; i < 2; i++) {
                byte[] data = new byte[100_000 + life * 1000 + i];
                new java.util.SplittableRandom(life * 10L + i).nextBytes(data);
                CompletableFuture<Void> served = CompletableFuture.runAsync(
                        () -> {
                            try (Socket s = listening.accept()) {
                                byte[] got = s.getInputStream().readAllBytes();
                                s.getOutputStream()
                                        .write(java.security.MessageDigest.getInstance("SHA-256")
                                                .digest(got));
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                        },
                        threads);
                try (Socket s = connect(client, addressOf(listening))) {
                    assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo("routed");
                    s.getOutputStream().write(data);
                    s.shutdownOutput();
                    assertThat(s.getInputStream().readAllBytes())
                            .as("life %d, connection %d: the server's digest of %d bytes", life, i, data.length)
                            .isEqualTo(java.security.MessageDigest.getInstance("SHA-256")
                                    .digest(data));
                }
                served.get(10, TimeUnit.SECONDS);
            }
            listening.close();
            server.close();
        }
    }

    private TraverseServerSocket listen(Traverse server) throws Exception {
        return net.closeLater(server.serverSocketFactory().createServerSocket(PORT));
    }

    private static VirtualSocketAddress addressOf(TraverseServerSocket listening) {
        return (VirtualSocketAddress) listening.getLocalSocketAddress();
    }

    private static Socket connect(Traverse from, VirtualSocketAddress to) throws IOException {
        return from.socketFactory().createSocket(to.getHostString(), to.getPort());
    }

    /** Writes {@code bytes} of the seeded stream while reading the other end's to EOF; half-closes; returns what was read's digest. */
    private byte[] exchange(Socket s, long seed, int bytes) throws Exception {
        return SeededStreams.exchange(s, threads, SeededStreams.EVEN, seed, bytes, () -> READ_SIZE);
    }

    private static void writeStream(OutputStream out, long seed, int bytes) throws IOException {
        SeededStreams.write(SeededStreams.EVEN, out, seed, bytes);
    }

    private static byte[] expectedDigest(long seed, int bytes) throws Exception {
        return SeededStreams.expectedDigest(SeededStreams.EVEN, seed, bytes);
    }

    private static byte[] digestToEof(InputStream in) throws Exception {
        return SeededStreams.digestToEof(in, () -> READ_SIZE);
    }
}
