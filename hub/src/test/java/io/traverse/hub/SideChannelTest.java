package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.identity.NodeId;
import io.traverse.wire.LookupKind;
import io.traverse.wire.RejectCode;
import io.traverse.wire.ResultStatus;
import io.traverse.wire.SideMessage;
import io.traverse.wire.SideMessageError;
import io.traverse.wire.SideMessageKind;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Side messages across three hubs in a line: a - b - c, node "left" at a, node "right" at c. */
class SideChannelTest {
    private final TestHubs hubs = new TestHubs();
    private TestNodeClient left;
    private TestNodeClient right;
    private Hub a;
    private Hub b;
    private Hub c;

    @BeforeEach
    void lineWithTwoNodes() throws Exception {
        a = hubs.dialOnly("side-a");
        b = hubs.dialOnly("side-b", a);
        c = hubs.dialOnly("side-c", b);
        left = TestNodeClient.connect(a, TestHubs.TOKEN, "left");
        right = TestNodeClient.connect(c, TestHubs.TOKEN, "right");
        // Answers travel by the routing table too: both ends' hubs must know where the other node is.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(left.lookup(LookupKind.NODE, right.id().toString()).entries())
                    .first()
                    .isEqualTo(c.id().toString());
            assertThat(right.lookup(LookupKind.NODE, left.id().toString()).entries())
                    .first()
                    .isEqualTo(a.id().toString());
        });
    }

    @AfterEach
    void closeAll() {
        if (left != null) {
            left.close();
        }
        if (right != null) {
            right.close();
        }
        hubs.close();
    }

    @Test
    void requestAndReplyCrossThreeHubs() throws Exception {
        SideMessage request = SideMessage.request(42, left.id(), right.id(), "echo", bytes("ping"));
        left.send(request);
        SideMessage arrived = right.await(SideMessage.class);
        assertThat(arrived.kind()).isEqualTo(SideMessageKind.REQUEST);
        assertThat(arrived.from()).isEqualTo(left.id());
        assertThat(arrived.service()).isEqualTo("echo");
        assertThat(new String(arrived.payload(), StandardCharsets.UTF_8)).isEqualTo("ping");
        assertThat(arrived.hopsLeft()).as("two hub-to-hub hops").isEqualTo(request.hopsLeft() - 2);

        right.send(arrived.reply(bytes("pong")));
        SideMessage reply = left.await(SideMessage.class);
        assertThat(reply.kind()).isEqualTo(SideMessageKind.REPLY);
        assertThat(reply.messageId()).isEqualTo(42);
        assertThat(reply.from()).isEqualTo(right.id());
        assertThat(new String(reply.payload(), StandardCharsets.UTF_8)).isEqualTo("pong");
        assertThat(b.status().sideMessagesForwarded()).isEqualTo(2);
    }

    @Test
    void anUnknownNodeIsAnErrorForTheSender() throws Exception {
        left.send(SideMessage.request(7, left.id(), NodeId.of("nobody"), "echo", new byte[0]));
        SideMessage error = left.await(SideMessage.class);
        assertThat(error.kind()).isEqualTo(SideMessageKind.ERROR);
        assertThat(error.messageId()).isEqualTo(7);
        assertThat(error.errorCode()).isEqualTo(SideMessageError.UNKNOWN_NODE);
        assertThat(error.errorReason()).contains("nobody");
    }

    @Test
    void theHopLimitStopsAMessageAndSaysWhere() throws Exception {
        left.send(new SideMessage(8, left.id(), right.id(), 1, SideMessageKind.REQUEST, "echo", new byte[0]));
        SideMessage error = left.await(SideMessage.class);
        assertThat(error.errorCode()).isEqualTo(SideMessageError.HOP_LIMIT);
        assertThat(error.errorReason()).contains(b.id().toString());
        assertThat(b.status().sideMessageErrors()).containsEntry("HOP_LIMIT", 1L);
    }

    @Test
    void aNodeCannotSendInAnotherNodesName() throws Exception {
        left.send(SideMessage.request(9, right.id(), right.id(), "echo", new byte[0]));
        assertThat(left.awaitClose()).satisfies(reject -> {
            assertThat(reject.code()).isEqualTo(RejectCode.PROTOCOL);
            assertThat(reject.reason()).contains("side message from node " + right.id());
        });
        // The hub goes on serving others.
        assertThat(right.lookup(LookupKind.HUBS, "").status()).isEqualTo(ResultStatus.OK);
    }

    @Test
    void pendingRequestsPerNodeAreBounded() throws Exception {
        hubs.close();
        Hub small = hubs.start("side-small", builder -> builder.maxPendingRequestsPerNode(2));
        try (TestNodeClient asker = TestNodeClient.connect(small, TestHubs.TOKEN, "asker");
                TestNodeClient silent = TestNodeClient.connect(small, TestHubs.TOKEN, "silent")) {
            for (int i = 1; i <= 3; i++) {
                asker.send(SideMessage.request(i, asker.id(), silent.id(), "never-answers", new byte[0]));
            }
            SideMessage error = asker.await(SideMessage.class);
            assertThat(error.messageId()).isEqualTo(3);
            assertThat(error.errorCode()).isEqualTo(SideMessageError.OVERLOAD);
            // An answer frees a slot.
            SideMessage first = silent.await(SideMessage.class);
            silent.send(first.reply(new byte[0]));
            assertThat(asker.await(SideMessage.class).kind()).isEqualTo(SideMessageKind.REPLY);
            asker.send(SideMessage.request(4, asker.id(), silent.id(), "never-answers", new byte[0]));
            silent.await(SideMessage.class);
            assertThat(silent.await(SideMessage.class).messageId()).isEqualTo(4);
        }
    }

    /**
     * Once a round trip has taught the hubs the way, side messages leave from the I/O thread that
     * read them (no state loop): they must still arrive in order, and the hop limit, the sender
     * check and the answers' bookkeeping must hold on that path too.
     */
    @Test
    void aLearnedPathKeepsOrderAndEveryCheck() throws Exception {
        left.send(SideMessage.request(1, left.id(), right.id(), "echo", bytes("warm")));
        right.send(right.await(SideMessage.class).reply(bytes("up")));
        assertThat(left.await(SideMessage.class).kind()).isEqualTo(SideMessageKind.REPLY);

        for (int i = 100; i < 140; i++) {
            left.send(SideMessage.request(i, left.id(), right.id(), "echo", bytes("n" + i)));
        }
        for (int i = 100; i < 140; i++) {
            SideMessage arrived = right.await(SideMessage.class);
            assertThat(arrived.messageId()).as("order kept").isEqualTo(i);
            assertThat(arrived.payload()).isEqualTo(bytes("n" + i));
            right.send(arrived.reply(bytes("r" + i)));
        }
        for (int i = 100; i < 140; i++) {
            SideMessage reply = left.await(SideMessage.class);
            assertThat(reply.messageId()).isEqualTo(i);
            assertThat(reply.payload()).isEqualTo(bytes("r" + i));
        }
        assertThat(b.status().sideMessagesForwarded()).isEqualTo(2 + 2 * 40);

        left.send(new SideMessage(8, left.id(), right.id(), 1, SideMessageKind.REQUEST, "echo", new byte[0]));
        SideMessage error = left.await(SideMessage.class);
        assertThat(error.errorCode()).isEqualTo(SideMessageError.HOP_LIMIT);
        assertThat(error.errorReason()).contains(b.id().toString());

        left.send(SideMessage.request(9, right.id(), right.id(), "echo", new byte[0]));
        assertThat(left.awaitClose()).satisfies(reject -> {
            assertThat(reject.code()).isEqualTo(RejectCode.PROTOCOL);
            assertThat(reject.reason()).contains("side message from node " + right.id());
        });
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
