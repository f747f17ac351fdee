package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.hub.HubStatus.NodeStatus;
import io.traverse.identity.NodeId;
import io.traverse.wire.Ping;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import java.time.Duration;
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
        TestNodeClient stalled = TestNodeClient.connect(TestNodeClient.loopback(hub), TestHubs.TOKEN, NodeId.of("stalled"), false);
        TestNodeClient sender = TestNodeClient.connect(hub, TestHubs.TOKEN, "sender");
        Thread pings = daemon(() -> {
            while (true) {
                stalled.send(new Ping(System.nanoTime()));
                Thread.sleep(100);
            }
        });
        Thread stream = daemon(() -> {
            byte[] chunk = new byte[Relay.MAX_DATA_BYTES];
            long offset = 0;
            for (int i = 0; i < 1024; i++) {
                sender.send(Relay.data(1, sender.id(), stalled.id(), RelayDirection.TOWARD_ACCEPTOR, offset, chunk));
                offset += chunk.length;
            }
        });
        try {
            await().atMost(Duration.ofSeconds(10)).until(() -> hub.status().nodes().stream().map(NodeStatus::nodeId)
                    .noneMatch(stalled.id()::equals));
            Thread.sleep(4 * TestHubs.KEEPALIVE.toMillis());
            assertThat(hub.status().nodes()).extracting(NodeStatus::nodeId).as("the sender's link, held while the stalled node's filled")
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
     * many keepalive intervals — but it reads: it is slow, not dead, and keeps its link (issue 21).
     */
    @Test
    void aNodeThatReadsSlowlyKeepsItsLink() throws Exception {
        Hub hub = hubs.dialOnly("slow-reader");
        TestNodeClient slow = TestNodeClient.connect(TestNodeClient.loopback(hub), TestHubs.TOKEN, NodeId.of("slow"), false);
        TestNodeClient sender = TestNodeClient.connect(hub, TestHubs.TOKEN, "sender");
        java.util.concurrent.atomic.AtomicLong framesRead = new java.util.concurrent.atomic.AtomicLong();
        Thread pings = daemon(() -> {
            while (true) {
                slow.send(new Ping(System.nanoTime()));
                Thread.sleep(100);
            }
        });
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
            assertThat(hub.status().nodes()).extracting(NodeStatus::nodeId).as("the slow node and the sender keep their links")
                    .contains(slow.id(), sender.id());
            assertThat(framesRead.get()).as("the slow node read all along").isGreaterThan(20);
            assertThat(stream.isAlive()).as("the sender was held back: the slow node's link stayed full").isTrue();
        } finally {
            pings.interrupt();
            reader.interrupt();
            stream.interrupt();
            slow.close();
            sender.close();
        }
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
