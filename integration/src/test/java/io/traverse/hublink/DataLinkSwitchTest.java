package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node's relayed connections work from the moment its link is up, before its data link is
 * open, and keep every byte in order, both ways, when the data link takes over mid-stream
 * (DATA_LINK_SWITCH; docs/protocol.md, "Data links"). The server's node reaches the hub through a
 * forwarder that holds its second connection — the data link — until the test lets it through,
 * and then holds back what the node sends on its link for a while: the node's last frames there
 * and its DATA_LINK_SWITCH reach the hub well after the frames it sends next on the data link,
 * which the hub must not take before them.
 */
class DataLinkSwitchTest {
    private static final int PORT = 4300;
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    /** Bytes each way after the switch, so that both ends surely write across it. */
    private static final long AFTER_SWITCH = 2L * 1024 * 1024;

    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private final ExecutorService threads = net.threads();

    @AfterEach
    void tearDown() throws Exception {
        net.close();
    }

    @Test
    void aStreamOpenedBeforeTheDataLinkCrossesTheSwitchIntactBothWays() throws Exception {
        Hub hub = net.hub("switch");
        Traverse client = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        assertThat(client.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        HoldingForwarder forwarder = net.closeLater(new HoldingForwarder(LoopbackHubNetwork.address(hub), threads));
        Traverse server = net.node(LoopbackHubNetwork.config()
                .hubs(List.of(forwarder.address()))
                .modules("routed")
                .connectTimeout(Duration.ofSeconds(10))
                .build());
        NodeRelayLink serverRelays = DataLinkTest.relayLinkOf(server);
        await().atMost(Duration.ofSeconds(10)).until(() -> serverRelays.session() != null && serverRelays.isLinked());
        await().atMost(Duration.ofSeconds(10)).until(() -> forwarder.held() == 1);
        assertThat(serverRelays.dataLinkRelay())
                .as("the data link is held back")
                .isNull();

        TraverseServerSocket listening =
                net.closeLater(server.serverSocketFactory().createServerSocket(PORT));
        LoopbackHubNetwork.awaitRoute(client, server);
        BooleanSupplier switched = () -> serverRelays.dataLinkRelay() != null;
        AtomicLong serverRead = new AtomicLong();
        CompletableFuture<byte[][]> served = CompletableFuture.supplyAsync(
                () -> {
                    try (Socket s = listening.accept()) {
                        return exchange(s, 31, switched, serverRead);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        CompletableFuture<Void> release = CompletableFuture.runAsync(
                () -> {
                    // Let the data link through once the stream is well under way on the link.
                    await().atMost(Duration.ofSeconds(30)).until(() -> serverRead.get() >= 1024 * 1024);
                    forwarder.holdLinkUpstream(true);
                    forwarder.release();
                    try {
                        Thread.sleep(300);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    forwarder.holdLinkUpstream(false);
                },
                threads);
        byte[][] clientSide;
        try (Socket s = client.socketFactory()
                .createSocket(((VirtualSocketAddress) listening.getLocalSocketAddress()).getHostString(), PORT)) {
            assertThat(client.connectionInfo(s).orElseThrow().module()).isEqualTo("routed");
            clientSide = exchange(s, 30, switched, new AtomicLong());
        }
        byte[][] serverSide = served.get(60, TimeUnit.SECONDS);
        release.get(5, TimeUnit.SECONDS);
        assertThat(clientSide[1])
                .as("what the client read is what the server wrote")
                .isEqualTo(serverSide[0]);
        assertThat(serverSide[1])
                .as("what the server read is what the client wrote")
                .isEqualTo(clientSide[0]);
        assertThat(switched.getAsBoolean()).isTrue();
        assertThat(serverRelays.isLinked()).isTrue();
    }

    /**
     * Writes a seeded stream in paced pieces until {@code switched} has held for
     * {@value #AFTER_SWITCH} more bytes, half-closes, and reads the other end's to EOF meanwhile.
     *
     * @return {SHA-256 and length of what was written, of what was read}
     */
    private byte[][] exchange(Socket s, long seed, BooleanSupplier switched, AtomicLong readCount) throws Exception {
        CompletableFuture<byte[]> reading = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return SeededStreams.digestToEof(s.getInputStream(), () -> 64 * 1024, readCount::set);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        Random random = new Random(seed);
        OutputStream out = s.getOutputStream();
        byte[] piece = new byte[8 * 1024 + 7];
        long written = 0;
        long switchedAt = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        for (int n = 0; switchedAt < 0 || written - switchedAt < AFTER_SWITCH; n++) {
            assertThat(System.nanoTime())
                    .as("the data link took over within 30 s")
                    .isLessThan(deadline);
            int length = 1 + random.nextInt(piece.length);
            random.nextBytes(piece);
            out.write(piece, 0, length);
            sha.update(piece, 0, length);
            written += length;
            if (switchedAt < 0 && switched.getAsBoolean()) {
                switchedAt = written;
            }
            if (n % 16 == 15) {
                Thread.sleep(1); // paced, so that the stream is still running when the data link opens
            }
        }
        s.shutdownOutput();
        assertThat(switchedAt).as("bytes were written before the switch").isGreaterThan(0);
        return new byte[][] {SeededStreams.withLength(sha.digest(), written), reading.get(60, TimeUnit.SECONDS)};
    }

    /**
     * A TCP forwarder on 127.0.0.1 to the hub: its first connection (the node's link) goes
     * through at once (what the node sends on it can be held back, {@link #holdLinkUpstream}),
     * its second (the data link) is accepted but not forwarded until {@link #release()}, later
     * ones at once.
     */
    static final class HoldingForwarder implements AutoCloseable {
        private final ServerSocket listener;
        private final InetSocketAddress target;
        private final ExecutorService threads;
        private final CountDownLatch released = new CountDownLatch(1);
        private final AtomicInteger accepted = new AtomicInteger();
        private final AtomicInteger held = new AtomicInteger();
        private final List<Socket> sockets = new java.util.concurrent.CopyOnWriteArrayList<>();
        private volatile CountDownLatch linkUpstream = new CountDownLatch(0);

        HoldingForwarder(InetSocketAddress target, ExecutorService threads) throws IOException {
            this.listener = new ServerSocket(0, 50, LOOPBACK);
            this.target = target;
            this.threads = threads;
            threads.execute(this::acceptLoop);
        }

        InetSocketAddress address() {
            return new InetSocketAddress(LOOPBACK, listener.getLocalPort());
        }

        int held() {
            return held.get();
        }

        void release() {
            released.countDown();
        }

        /** True: what the node sends on its link waits here; false: it goes on, in order. */
        void holdLinkUpstream(boolean hold) {
            if (hold) {
                linkUpstream = new CountDownLatch(1);
            } else {
                linkUpstream.countDown();
            }
        }

        private void acceptLoop() {
            try {
                while (true) {
                    Socket from = listener.accept();
                    sockets.add(from);
                    int n = accepted.incrementAndGet();
                    threads.execute(() -> forward(from, n));
                }
            } catch (IOException e) {
                // closed
            }
        }

        private void forward(Socket from, int n) {
            try {
                if (n == 2) {
                    held.incrementAndGet();
                    released.await();
                }
                Socket to = new Socket(target.getAddress(), target.getPort());
                sockets.add(to);
                from.setTcpNoDelay(true);
                to.setTcpNoDelay(true);
                threads.execute(() -> pump(to, from, false));
                pump(from, to, n == 1);
            } catch (IOException | InterruptedException e) {
                close(from);
            }
        }

        /** Copies until EOF, then passes the half-close on. */
        private void pump(Socket in, Socket out, boolean linkUpstream) {
            byte[] buffer = new byte[64 * 1024];
            try {
                InputStream from = in.getInputStream();
                OutputStream to = out.getOutputStream();
                for (int n; (n = from.read(buffer)) > 0; ) {
                    if (linkUpstream) {
                        this.linkUpstream.await();
                    }
                    to.write(buffer, 0, n);
                }
                out.shutdownOutput();
            } catch (IOException | InterruptedException e) {
                close(in);
                close(out);
            }
        }

        private static void close(Socket s) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }

        @Override
        public void close() throws IOException {
            released.countDown();
            linkUpstream.countDown();
            listener.close();
            sockets.forEach(HoldingForwarder::close);
        }
    }
}
