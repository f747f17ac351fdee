package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.hub.HubStatus.NodeStatus;
import io.traverse.identity.NodeId;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.LookupKind;
import io.traverse.wire.Ping;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import io.traverse.wire.RelayKind;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Relay backpressure is bounded, and falls on the link that does not read: a node that stops
 * reading its link while frames stream to it holds back the sender's link only for a while; then
 * the hub closes the link that takes nothing, and the sender's link — silent meanwhile because the
 * hub held it — stays up.
 */
class RelayBackpressureTest {
    private final TestHubs hubs = new TestHubs();

    @AfterEach
    void closeAll() {
        hubs.close();
    }

    @Test
    void aNodeThatReadsNothingLosesItsLinkAndTheSenderKeepsItsOwn() throws Exception {
        Hub hub = hubs.dialOnly("backpressure");
        // Sends PINGs (so it is not silent) but never reads what the hub sends it.
        TestNodeClient stalled =
                TestNodeClient.connect(TestNodeClient.loopback(hub), TestHubs.TOKEN, TestKeys.id("stalled"), false);
        TestNodeClient sender = TestNodeClient.connect(hub, TestHubs.TOKEN, "sender");
        Thread pings = pingEvery100Ms(stalled);
        Thread stream = daemon(() -> {
            byte[] chunk = new byte[Relay.MAX_DATA_BYTES];
            long offset = 0;
            for (int i = 0; i < 1024; i++) {
                sender.send(Relay.data(1, sender.id(), stalled.id(), RelayDirection.TOWARD_ACCEPTOR, offset, chunk));
                offset += chunk.length;
            }
        });
        try {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> hub.status().nodes().stream()
                            .map(NodeStatus::nodeId)
                            .noneMatch(stalled.id()::equals));
            Thread.sleep(4 * TestHubs.KEEPALIVE.toMillis());
            assertThat(hub.status().nodes())
                    .extracting(NodeStatus::nodeId)
                    .as("the sender's link, held while the stalled node's filled")
                    .contains(sender.id());
            assertThat(sender.isClosedByPeer()).isFalse();
        } finally {
            pings.interrupt();
            stream.interrupt();
            stalled.close();
            sender.close();
        }
    }

    /**
     * A busy node reads slowly — far slower than the hub sends, so its link stays unwritable for
     * many keepalive intervals — but it reads: it is slow, not dead, and keeps its link.
     */
    @Test
    void aNodeThatReadsSlowlyKeepsItsLink() throws Exception {
        Hub hub = hubs.dialOnly("slow-reader");
        TestNodeClient slow =
                TestNodeClient.connect(TestNodeClient.loopback(hub), TestHubs.TOKEN, TestKeys.id("slow"), false);
        TestNodeClient sender = TestNodeClient.connect(hub, TestHubs.TOKEN, "sender");
        AtomicLong framesRead = new AtomicLong();
        Thread pings = pingEvery100Ms(slow);
        // About 1.3 MB/s, far below what the hub sends: behind full kernel buffers the hub sees room
        // on the link only every second or so, longer than the 750 ms (2.5 keepalive intervals)
        // after which a link that stayed unwritable used to be closed.
        Thread reader = daemon(() -> {
            while (true) {
                slow.readFrame();
                framesRead.incrementAndGet();
                Thread.sleep(50);
            }
        });
        Thread stream = daemon(() -> {
            byte[] chunk = new byte[Relay.MAX_DATA_BYTES];
            long offset = 0;
            for (int i = 0; i < 1024; i++) {
                sender.send(Relay.data(1, sender.id(), slow.id(), RelayDirection.TOWARD_ACCEPTOR, offset, chunk));
                offset += chunk.length;
            }
        });
        try {
            Thread.sleep(12 * TestHubs.KEEPALIVE.toMillis());
            assertThat(hub.status().nodes())
                    .extracting(NodeStatus::nodeId)
                    .as("the slow node and the sender keep their links")
                    .contains(slow.id(), sender.id());
            assertThat(framesRead.get()).as("the slow node read all along").isGreaterThan(20);
            assertThat(stream.isAlive())
                    .as("the sender was held back: the slow node's link stayed full")
                    .isTrue();
        } finally {
            pings.interrupt();
            reader.interrupt();
            stream.interrupt();
            slow.close();
            sender.close();
        }
    }

    /**
     * One sender, two connections: one to a node that reads slowly, one to a node that reads at
     * once. The slow node's link fills, but the hub holds back only that connection (it passes on
     * the slow node's credit no further than what it has written to it), not the sender's link:
     * the other connection goes on at full speed ("a hub applies backpressure per
     * virtual connection"). Both senders keep to the credit they are passed, as nodes do.
     */
    @Test
    void aSlowNodeHoldsBackOnlyItsOwnConnectionNotTheSendersOthers() throws Exception {
        slowAndFastConnections("per-connection", 1);
    }

    /**
     * The same with eight busy connections to the slow node: together they queue more for it than
     * one connection's window, and still only they are held back, each by its own window, while
     * the sender's connection to the fast node goes on (before, the hub stopped reading the
     * sender's link once the slow node's queue passed one window).
     */
    @Test
    void severalBusyConnectionsToASlowNodeHoldBackOnlyThemselves() throws Exception {
        slowAndFastConnections("many-to-slow", 8);
    }

    private void slowAndFastConnections(String hubName, int toSlow) throws Exception {
        Hub hub = hubs.dialOnly(hubName);
        TestNodeClient slow =
                TestNodeClient.connect(TestNodeClient.loopback(hub), TestHubs.TOKEN, TestKeys.id("slow"), false);
        TestNodeClient fast = TestNodeClient.connect(hub, TestHubs.TOKEN, "fast");
        TestNodeClient sender = TestNodeClient.connect(hub, TestHubs.TOKEN, "sender");
        long granted = 0xFFFF_FFFFL; // both receivers grant far more than the test can send (the most an OPEN or ACCEPT
        // carries)
        long fastId = 0;
        Map<Long, AtomicLong> limits = new ConcurrentHashMap<>();
        Map<Long, AtomicLong> slowBytes = new ConcurrentHashMap<>();
        for (long id = 1; id <= toSlow; id++) {
            limits.put(id, new AtomicLong());
            slowBytes.put(id, new AtomicLong());
            sender.send(Relay.open(id, sender.id(), slow.id(), 80, granted));
            Relay open = awaitRelay(slow::readFrame);
            slow.send(open.accept(granted));
            open.release();
        }
        limits.put(fastId, new AtomicLong());
        sender.send(Relay.open(fastId, sender.id(), fast.id(), 80, granted));
        Relay open = (Relay) fast.await(Relay.class);
        fast.send(open.accept(granted));
        open.release();

        AtomicLong fastBytes = new AtomicLong();
        AtomicBoolean slowInOrder = new AtomicBoolean(true);
        List<Thread> threads = new ArrayList<>();
        threads.add(recordCredit(sender, limits));
        threads.add(pingEvery100Ms(slow));
        threads.add(daemon(() -> {
            while (true) {
                count(slow.readFrame(), slowBytes, slowInOrder);
                Thread.sleep(50);
            }
        }));
        threads.add(countData(fast, Map.of(fastId, fastBytes), new AtomicBoolean(true)));
        for (long id = 0; id <= toSlow; id++) {
            threads.add(stream(sender, id == fastId ? fast.id() : slow.id(), id, limits.get(id)));
        }
        try {
            Thread.sleep(1000); // the slow node's link fills
            long before = fastBytes.get();
            Thread.sleep(3000);
            long moved = fastBytes.get() - before;
            assertThat(moved)
                    .as("bytes the fast node got in 3 s while the slow node's link was full")
                    .isGreaterThan(48L << 20);
            long slowLimits = 0;
            long slowRead = 0;
            for (long id = 1; id <= toSlow; id++) {
                slowLimits += limits.get(id).get();
                slowRead += slowBytes.get(id).get();
            }
            assertThat(slowLimits)
                    .as("the slow node's connections move on: the hub passed on more as it wrote")
                    .isGreaterThan(2L * DeliveryWindowSize.BYTES);
            assertThat(slowLimits - slowRead)
                    .as("what the slow connections were let send beyond what their node read: the"
                            + " hub's windows beyond what it wrote, plus what the kernel's socket buffers took")
                    .isLessThan(toSlow * DeliveryWindowSize.BYTES + (16L << 20));
            assertThat(slowInOrder)
                    .as("the slow node's bytes arrived in order, none lost")
                    .isTrue();
            assertThat(hub.metrics().relayHolds())
                    .as("links held: the windows alone bounded the slow node's queue")
                    .isZero();
            assertThat(hub.metrics().relayWindowCredits())
                    .as("the hub's own CREDITs, as it wrote to the slow node")
                    .isPositive();
            assertThat(hub.status().nodes()).extracting(NodeStatus::nodeId).contains(slow.id(), fast.id(), sender.id());
        } finally {
            threads.forEach(Thread::interrupt);
            slow.close();
            fast.close();
            sender.close();
        }
    }

    /**
     * A sender with sixteen busy connections across a slow hub-to-hub link (a narrow WAN between
     * two sites, here a pipe that passes about 4 MB/s) and one to a node of its own hub. Together
     * the crossing connections' windows fill the hub link, but the sender's hub holds back only
     * them (it passes on their credit no further than what it wrote to the hub link), not the
     * sender's link: the local connection goes on at full speed. (One crossing connection alone is
     * held to a window by the far hub, which passes on the credit of its node only as far as it
     * wrote to it; the near hub's link does not fill.)
     */
    @Test
    void aSlowHubLinkHoldsBackOnlyTheConnectionsOnItNotTheSendersOthers() throws Exception {
        int crossing = 16;
        Hub far = hubs.dialOnly("far-site");
        try (ThrottledPipe wan = new ThrottledPipe(far.linkAddress().getPort(), 16 * 1024, 4)) {
            Hub near = hubs.start(
                    "near-site", b -> b.advertisedAddresses(List.of()).peer("127.0.0.1:" + wan.port()));
            TestNodeClient remote = TestNodeClient.connect(far, TestHubs.TOKEN, "remote");
            TestNodeClient local = TestNodeClient.connect(near, TestHubs.TOKEN, "local");
            TestNodeClient sender = TestNodeClient.connect(near, TestHubs.TOKEN, "sender");
            List<Thread> threads = new ArrayList<>();
            try {
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertThat(sender.lookup(
                                                LookupKind.NODE, remote.id().toString())
                                        .entries())
                                .first()
                                .isEqualTo(far.id().toString()));
                long granted = 0xFFFF_FFFFL;
                long localId = 0;
                Map<Long, AtomicLong> limits = new ConcurrentHashMap<>();
                Map<Long, AtomicLong> remoteBytes = new ConcurrentHashMap<>();
                for (long id = 0; id <= crossing; id++) {
                    limits.put(id, new AtomicLong());
                    TestNodeClient acceptor = id == localId ? local : remote;
                    remoteBytes.put(id, new AtomicLong());
                    sender.send(Relay.open(id, sender.id(), acceptor.id(), 80, granted));
                    Relay open = (Relay) acceptor.await(Relay.class);
                    acceptor.send(open.accept(granted));
                    open.release();
                }
                AtomicLong localBytes = remoteBytes.remove(localId);
                AtomicBoolean remoteInOrder = new AtomicBoolean(true);
                threads.add(recordCredit(sender, limits));
                threads.add(countData(remote, remoteBytes, remoteInOrder));
                threads.add(countData(local, Map.of(localId, localBytes), new AtomicBoolean(true)));
                for (long id = 0; id <= crossing; id++) {
                    threads.add(stream(sender, id == localId ? local.id() : remote.id(), id, limits.get(id)));
                }
                Thread.sleep(1000); // the hub link fills
                long before = localBytes.get();
                Thread.sleep(3000);
                assertThat(localBytes.get() - before)
                        .as("bytes the local node got in 3 s while the hub link was full")
                        .isGreaterThan(48L << 20);
                long arrived =
                        remoteBytes.values().stream().mapToLong(AtomicLong::get).sum();
                long let = remoteBytes.keySet().stream()
                        .mapToLong(id -> limits.get(id).get())
                        .sum();
                assertThat(arrived)
                        .as("the connections across the slow link move on")
                        .isGreaterThan(2L << 20);
                assertThat(let - arrived)
                        .as("what the crossing connections were let send beyond what arrived: their windows"
                                + " beyond what the near hub wrote, plus the kernels' and the pipe's buffers")
                        .isLessThan(crossing * DeliveryWindowSize.BYTES + (16L << 20));
                assertThat(remoteInOrder).as("in order, none lost").isTrue();
                assertThat(near.metrics().relayHolds())
                        .as("links the near hub held")
                        .isZero();
            } finally {
                threads.forEach(Thread::interrupt);
                remote.close();
                local.close();
                sender.close();
            }
        }
    }

    /** The hub's window per connection ({@code io.traverse.hub.relay.DeliveryWindow.SIZE}, package-private there). */
    private static final class DeliveryWindowSize {
        static final long BYTES = 1 << 20;
    }

    /** Keeps the highest limit the sender is granted on each connection (ACCEPT and CREDIT). */
    private static Thread recordCredit(TestNodeClient sender, Map<Long, AtomicLong> limits) {
        return daemon(() -> {
            while (true) {
                if (sender.poll(Duration.ofSeconds(1)) instanceof Relay r) {
                    if (r.kind() == RelayKind.ACCEPT || r.kind() == RelayKind.CREDIT) {
                        limits.get(r.connectionId()).accumulateAndGet(r.credit(), Math::max);
                    }
                    r.release();
                }
            }
        });
    }

    /** Counts the DATA bytes a node gets on each connection, clearing {@code inOrder} if any come out of order. */
    private static Thread countData(TestNodeClient node, Map<Long, AtomicLong> bytes, AtomicBoolean inOrder) {
        return daemon(() -> {
            while (true) {
                count(node.poll(Duration.ofSeconds(1)), bytes, inOrder);
            }
        });
    }

    private static void count(LinkMessage message, Map<Long, AtomicLong> bytes, AtomicBoolean inOrder) {
        if (message instanceof Relay r) {
            if (r.kind() == RelayKind.DATA) {
                AtomicLong got = bytes.get(r.connectionId());
                if (r.streamOffset() != got.get()) {
                    inOrder.set(false);
                }
                got.addAndGet(r.dataBytes().readableBytes());
            }
            r.release();
        }
    }

    /** A thread that sends DATA on connection {@code id} as far as its credit goes, waiting for more when it runs out. */
    private static Thread stream(TestNodeClient sender, NodeId acceptor, long id, AtomicLong limit) {
        return daemon(() -> sendWithinCredit(sender, acceptor, id, limit));
    }

    private static void sendWithinCredit(TestNodeClient sender, NodeId acceptor, long id, AtomicLong limit)
            throws Exception {
        byte[] chunk = new byte[64 * 1024];
        long offset = 0;
        while (true) {
            long room = limit.get() - offset;
            if (room <= 0) {
                Thread.sleep(1);
                continue;
            }
            int n = (int) Math.min(chunk.length, room);
            sender.send(Relay.data(
                    id,
                    sender.id(),
                    acceptor,
                    RelayDirection.TOWARD_ACCEPTOR,
                    offset,
                    n == chunk.length ? chunk : java.util.Arrays.copyOf(chunk, n)));
            offset += n;
        }
    }

    /**
     * A TCP pipe to a local port that passes {@code chunk} bytes every {@code pauseMillis} one way
     * (dialler to target) and everything the other way: a narrow link between two sites.
     */
    private static final class ThrottledPipe implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress());
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        ThrottledPipe(int targetPort, int chunk, long pauseMillis) throws IOException {
            daemon(() -> {
                while (true) {
                    Socket in = server.accept();
                    Socket out = new Socket(InetAddress.getLoopbackAddress(), targetPort);
                    sockets.add(in);
                    sockets.add(out);
                    daemon(() -> copy(in.getInputStream(), out.getOutputStream(), chunk, pauseMillis));
                    daemon(() -> copy(out.getInputStream(), in.getOutputStream(), 64 * 1024, 0));
                }
            });
        }

        int port() {
            return server.getLocalPort();
        }

        private static void copy(InputStream from, OutputStream to, int chunk, long pauseMillis) throws Exception {
            byte[] buffer = new byte[chunk];
            for (int n; (n = from.read(buffer)) >= 0; ) {
                to.write(buffer, 0, n);
                if (pauseMillis > 0) {
                    Thread.sleep(pauseMillis);
                }
            }
            to.close();
        }

        @Override
        public void close() throws IOException {
            server.close();
            for (Socket socket : sockets) {
                socket.close();
            }
        }
    }

    private interface FrameSource {
        LinkMessage next() throws Exception;
    }

    private static Relay awaitRelay(FrameSource source) throws Exception {
        while (true) {
            if (source.next() instanceof Relay r) {
                return r;
            }
        }
    }

    /** Keeps a node that does not read from being silent to the hub's keepalive. */
    private static Thread pingEvery100Ms(TestNodeClient node) {
        return daemon(() -> {
            while (true) {
                node.send(new Ping(System.nanoTime()));
                Thread.sleep(100);
            }
        });
    }

    private interface Body {
        void run() throws Exception;
    }

    private static Thread daemon(Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                // the link closed or the test ended
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }
}
