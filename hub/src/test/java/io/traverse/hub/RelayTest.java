package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Counter;
import io.traverse.identity.NodeId;
import io.traverse.wire.LookupKind;
import io.traverse.wire.RejectCode;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import io.traverse.wire.RelayKind;
import io.traverse.wire.ResultStatus;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Relay frames across three hubs in a line: a - b - c, node "opener" at a, node "acceptor" at c. */
class RelayTest {
    private static final int STREAM_BYTES = 2 * 1024 * 1024;

    private final TestHubs hubs = new TestHubs();
    private TestNodeClient opener;
    private TestNodeClient acceptor;
    private Hub a;
    private Hub b;
    private Hub c;

    @BeforeEach
    void lineWithTwoNodes() throws Exception {
        a = hubs.dialOnly("relay-a");
        b = hubs.dialOnly("relay-b", a);
        c = hubs.dialOnly("relay-c", b);
        opener = TestNodeClient.connect(a, TestHubs.TOKEN, "opener");
        acceptor = TestNodeClient.connect(c, TestHubs.TOKEN, "acceptor");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(opener.lookup(LookupKind.NODE, acceptor.id().toString()).entries())
                    .first()
                    .isEqualTo(c.id().toString());
            assertThat(acceptor.lookup(LookupKind.NODE, opener.id().toString()).entries())
                    .first()
                    .isEqualTo(a.id().toString());
        });
    }

    @AfterEach
    void closeAll() {
        if (opener != null) {
            opener.close();
        }
        if (acceptor != null) {
            acceptor.close();
        }
        hubs.close();
    }

    @Test
    void anOpenReachesTheAcceptorAcrossThreeHubsAndTheAcceptComesBack() throws Exception {
        Relay open = Relay.open(0x8000_0000_0000_0077L, opener.id(), acceptor.id(), 8080, 256 * 1024);
        opener.send(open);
        Relay arrived = acceptor.await(Relay.class);
        assertThat(arrived.kind()).isEqualTo(RelayKind.OPEN);
        assertThat(arrived.connectionId()).isEqualTo(0x8000_0000_0000_0077L);
        assertThat(arrived.opener()).isEqualTo(opener.id());
        assertThat(arrived.acceptor()).isEqualTo(acceptor.id());
        assertThat(arrived.direction()).isEqualTo(RelayDirection.TOWARD_ACCEPTOR);
        assertThat(arrived.virtualPort()).isEqualTo(8080);
        assertThat(arrived.credit()).isEqualTo(256 * 1024);
        assertThat(arrived.hopsLeft()).as("two hub-to-hub hops").isEqualTo(open.hopsLeft() - 2);

        acceptor.send(arrived.accept(128 * 1024));
        Relay accept = opener.await(Relay.class);
        assertThat(accept.kind()).isEqualTo(RelayKind.ACCEPT);
        assertThat(accept.connectionId()).isEqualTo(open.connectionId());
        assertThat(accept.credit()).isEqualTo(128 * 1024);
        eventually(() -> {
            assertThat(relayFrames(b, "forwarded")).isEqualTo(2);
            assertThat(relayFrames(a, "delivered"))
                    .as("the ACCEPT handed to the opener")
                    .isEqualTo(1);
            assertThat(relayFrames(c, "delivered"))
                    .as("the OPEN handed to the acceptor")
                    .isEqualTo(1);
        });
    }

    @Test
    void dataFramesCrossBothWaysInOrderAndIntact() throws Exception {
        long connection = 5;
        byte[] toAcceptor = randomBytes(1);
        byte[] toOpener = randomBytes(2);
        // Both directions at once, so frames of the two directions interleave on every link.
        CompletableFuture<byte[]> atAcceptor = CompletableFuture.supplyAsync(() -> receiveStream(acceptor));
        CompletableFuture<byte[]> atOpener = CompletableFuture.supplyAsync(() -> receiveStream(opener));
        CompletableFuture<Void> sendingRight = CompletableFuture.runAsync(
                () -> sendStream(opener, connection, RelayDirection.TOWARD_ACCEPTOR, toAcceptor));
        sendStream(acceptor, connection, RelayDirection.TOWARD_OPENER, toOpener);
        sendingRight.get(30, TimeUnit.SECONDS);

        assertThat(atAcceptor.get(30, TimeUnit.SECONDS)).isEqualTo(sha256(toAcceptor));
        assertThat(atOpener.get(30, TimeUnit.SECONDS)).isEqualTo(sha256(toOpener));
        int framesEachWay = (STREAM_BYTES + Relay.MAX_DATA_BYTES - 1) / Relay.MAX_DATA_BYTES + 1;
        eventually(() -> {
            assertThat(relayFrames(b, "forwarded")).isEqualTo(2L * framesEachWay);
            // Payload bytes: the stream, and the stream offset (8 bytes) of every DATA and FIN.
            assertThat(relayBytes(b, "forwarded"))
                    .isEqualTo(2L * (STREAM_BYTES + Relay.DATA_OFFSET_LENGTH * framesEachWay));
        });
    }

    @Test
    void aFrameToAnUnknownNodeComesBackAsAReset() throws Exception {
        opener.send(Relay.open(11, opener.id(), NodeId.of("nobody"), 80, 1024));
        Relay reset = opener.await(Relay.class);
        assertThat(reset.kind()).isEqualTo(RelayKind.RESET);
        assertThat(reset.connectionId()).isEqualTo(11);
        assertThat(reset.direction()).isEqualTo(RelayDirection.TOWARD_OPENER);
        assertThat(reset.acceptor()).isEqualTo(NodeId.of("nobody"));
        assertThat(reset.reason()).contains("nobody");
        assertThat(relayFailures(a, "UNKNOWN_NODE")).isEqualTo(1);
    }

    @Test
    void aResetThatCannotBeDeliveredIsDroppedNotAnswered() throws Exception {
        NodeId nobody = NodeId.of("nobody");
        opener.send(Relay.frame(12, opener.id(), nobody, RelayDirection.TOWARD_ACCEPTOR, RelayKind.RESET, new byte[0]));
        opener.send(Relay.fin(13, opener.id(), nobody, RelayDirection.TOWARD_ACCEPTOR, 0));
        Relay reset = opener.await(Relay.class);
        assertThat(reset.connectionId()).as("only the FIN is answered").isEqualTo(13);
        assertThat(relayFailures(a, "UNKNOWN_NODE")).isEqualTo(2);
    }

    @Test
    void theHopLimitStopsAFrameAndTheResetSaysWhere() throws Exception {
        opener.send(new Relay(
                14, opener.id(), acceptor.id(), RelayDirection.TOWARD_ACCEPTOR, 1, RelayKind.DATA, new byte[100]));
        Relay reset = opener.await(Relay.class);
        assertThat(reset.kind()).isEqualTo(RelayKind.RESET);
        assertThat(reset.connectionId()).isEqualTo(14);
        assertThat(reset.reason()).contains("hop limit").contains(b.id().toString());
        assertThat(relayFailures(b, "HOP_LIMIT")).isEqualTo(1);
    }

    @Test
    void aNodeCannotSendInAnotherNodesNameAndOnlyItsLinkCloses() throws Exception {
        try (TestNodeClient bystander = TestNodeClient.connect(a, TestHubs.TOKEN, "bystander")) {
            // The offender is neither the opener of a frame toward the acceptor nor the acceptor of one toward the
            // opener.
            opener.send(Relay.data(15, acceptor.id(), bystander.id(), RelayDirection.TOWARD_OPENER, 0, new byte[] {1}));
            assertThat(opener.awaitClose()).satisfies(reject -> {
                assertThat(reject.code()).isEqualTo(RejectCode.PROTOCOL);
                assertThat(reject.reason()).contains("relay frame").contains("from node " + bystander.id());
            });
            assertThat(bystander.isClosedByPeer()).isFalse();
            assertThat(relayFrames(a, "delivered"))
                    .as("nothing reached the bystander")
                    .isZero();

            // The hub goes on relaying for others, from the same hub.
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(bystander
                                    .lookup(LookupKind.NODE, acceptor.id().toString())
                                    .status())
                            .isEqualTo(ResultStatus.OK));
            bystander.send(Relay.open(16, bystander.id(), acceptor.id(), 9, 1));
            assertThat(acceptor.await(Relay.class).opener()).isEqualTo(bystander.id());
        }
    }

    /** A hub counts a frame just after handing it on, so its receiver may see the frame first. */
    private static void eventually(org.awaitility.core.ThrowingRunnable assertion) {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(assertion);
    }

    private static void sendStream(TestNodeClient from, long connection, RelayDirection direction, byte[] bytes) {
        NodeId openerId = direction == RelayDirection.TOWARD_ACCEPTOR ? from.id() : TestKeys.id("opener");
        NodeId acceptorId = direction == RelayDirection.TOWARD_ACCEPTOR ? TestKeys.id("acceptor") : from.id();
        try {
            for (int offset = 0; offset < bytes.length; offset += Relay.MAX_DATA_BYTES) {
                int length = Math.min(Relay.MAX_DATA_BYTES, bytes.length - offset);
                byte[] chunk = new byte[length];
                System.arraycopy(bytes, offset, chunk, 0, length);
                from.send(Relay.data(connection, openerId, acceptorId, direction, offset, chunk));
            }
            from.send(Relay.fin(connection, openerId, acceptorId, direction, bytes.length));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** Reads DATA until FIN; the SHA-256 of what arrived. */
    private static byte[] receiveStream(TestNodeClient at) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            long received = 0;
            while (true) {
                Relay frame = at.await(Relay.class);
                if (frame.kind() == RelayKind.FIN) {
                    assertThat(received).isEqualTo(STREAM_BYTES);
                    return digest.digest();
                }
                assertThat(frame.kind()).isEqualTo(RelayKind.DATA);
                assertThat(frame.streamOffset()).isEqualTo(received);
                byte[] bytes = io.netty.buffer.ByteBufUtil.getBytes(frame.dataBytes());
                digest.update(bytes);
                received += bytes.length;
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] randomBytes(long seed) {
        byte[] bytes = new byte[STREAM_BYTES];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static byte[] sha256(byte[] bytes) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(bytes);
    }

    private static long relayFrames(Hub hub, String outcome) {
        return (long) hub.metrics()
                .registry()
                .get("traverse.hub.relay.frames")
                .tag("outcome", outcome)
                .functionCounter()
                .count();
    }

    private static long relayBytes(Hub hub, String outcome) {
        return (long) hub.metrics()
                .registry()
                .get("traverse.hub.relay.bytes")
                .tag("outcome", outcome)
                .functionCounter()
                .count();
    }

    private static long relayFailures(Hub hub, String kind) {
        Counter counter = hub.metrics()
                .registry()
                .find("traverse.hub.relay.failures")
                .tag("kind", kind)
                .counter();
        return counter == null ? 0 : (long) counter.count();
    }
}
