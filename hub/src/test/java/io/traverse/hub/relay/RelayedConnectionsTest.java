package io.traverse.hub.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.hub.AdmissionLimit;
import io.traverse.identity.NodeId;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The table admission counts with, frame by frame, without a hub around it. */
class RelayedConnectionsTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");

    private final RelayedConnections table = new RelayedConnections("h", 3, 2, 5);

    @BeforeEach
    void linkNodes() {
        table.nodeJoined(A);
        table.nodeJoined(B);
        table.nodeJoined(C);
    }

    @Test
    void aConnectionIsASetupUntilAcceptedAndIsKeptUntilBothFins() {
        Relay open = Relay.open(1, A, B, 80, 1000);
        assertThat(table.admit(open, true, true)).isNull();
        assertThat(table.size()).isEqualTo(1);
        assertThat(table.setups()).isEqualTo(1);
        table.observe(open.accept(1000));
        assertThat(table.setups()).isZero();
        table.observe(Relay.fin(1, A, B, RelayDirection.TOWARD_ACCEPTOR, 10));
        table.observe(Relay.fin(1, A, B, RelayDirection.TOWARD_ACCEPTOR, 10));
        assertThat(table.size()).as("one direction's FIN twice is not both").isEqualTo(1);
        table.observe(Relay.fin(1, A, B, RelayDirection.TOWARD_OPENER, 0));
        assertThat(table.size()).isZero();
        assertThat(table.heldBy(A)).isZero();
        assertThat(table.heldBy(B)).isZero();
    }

    @Test
    void aFrameNamingAnotherAcceptorDoesNotEndTheConnection() {
        table.admit(Relay.open(1, A, B, 80, 1000), true, true);
        table.observe(Relay.reset(1, A, C, RelayDirection.TOWARD_OPENER, "not yours"));
        assertThat(table.size()).isEqualTo(1);
        table.observe(Relay.reset(1, A, B, RelayDirection.TOWARD_OPENER, "yours"));
        assertThat(table.size()).isZero();
    }

    @Test
    void aRepeatedOpenIsNotCountedTwiceAndARefusedOneLeavesNothing() {
        Relay open = Relay.open(1, A, B, 80, 1000);
        table.admit(open, true, false);
        assertThat(table.admit(open, true, false)).isNull();
        assertThat(table.size()).isEqualTo(1);
        table.admit(Relay.open(2, A, B, 80, 1000), true, false);
        RelayedConnections.Refusal refusal = table.admit(Relay.open(3, A, B, 80, 1000), true, false);
        assertThat(refusal.limit()).isEqualTo(AdmissionLimit.SETUPS_PER_NODE);
        assertThat(table.size()).isEqualTo(2);
        assertThat(table.heldBy(A)).isEqualTo(2);
        assertThat(table.heldBy(B)).as("b is not a node of this hub").isZero();
    }

    @Test
    void aNodeLeavingReleasesBothEndsAndResetsTheOtherEndOnly() {
        Relay ab = Relay.open(1, A, B, 80, 1000);
        Relay ca = Relay.open(2, C, A, 80, 1000);
        table.admit(ab, true, true);
        table.observe(ab.accept(1));
        table.admit(ca, false, true);
        table.admit(Relay.open(3, A, A, 80, 1000), true, true);
        assertThat(table.heldBy(A)).isEqualTo(3);

        List<Relay> resets = table.nodeLeft(A);
        assertThat(resets).extracting(Relay::destination).containsExactlyInAnyOrder(B, C);
        assertThat(resets).allSatisfy(r -> assertThat(r.reason()).isEqualTo("node " + A + " lost its link to hub h"));
        assertThat(table.size()).isZero();
        assertThat(table.setups()).isZero();
        assertThat(table.heldBy(A)).isZero();
        assertThat(table.heldBy(B)).isZero();
        assertThat(table.nodeLeft(A)).isEmpty();
    }

    @Test
    void theTotalIsCheckedBeforeTheNodes() {
        for (int i = 0; i < 5; i++) {
            NodeId opener = NodeId.of("o" + i);
            table.nodeJoined(opener);
            table.admit(Relay.open(i, opener, B, 80, 1000), true, false);
        }
        RelayedConnections.Refusal refusal = table.admit(Relay.open(9, A, C, 80, 1000), true, true);
        assertThat(refusal.limit()).isEqualTo(AdmissionLimit.RELAYED);
        assertThat(refusal.reason())
                .isEqualTo(
                        "OVERLOAD: 5 relayed connections are held at hub h, the most traverse.hub.max.relayed allows");
    }

    @Test
    void anOpenForANodeThatIsNotLinkedHereCountsNothing() {
        table.nodeLeft(A);
        assertThat(table.admit(Relay.open(1, A, NodeId.of("elsewhere"), 80, 1000), true, false))
                .isNull();
        assertThat(table.size()).isZero();
    }

    @Test
    void manyThreadsOpeningAndEndingAtOnceLeaveExactCountsAndNeverPassALimit() throws Exception {
        RelayedConnections shared = new RelayedConnections("h", 1_000, 1_000, 1_500);
        int threads = 4;
        NodeId[] openers = new NodeId[threads];
        for (int t = 0; t < threads; t++) {
            openers[t] = NodeId.of("opener-" + t);
            shared.nodeJoined(openers[t]);
        }
        shared.nodeJoined(B);
        java.util.concurrent.atomic.AtomicInteger admitted = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger worst = new java.util.concurrent.atomic.AtomicInteger();
        List<Thread> running = new java.util.ArrayList<>();
        for (int t = 0; t < threads; t++) {
            NodeId opener = openers[t];
            Thread thread = new Thread(() -> {
                for (long id = 0; id < 2_000; id++) {
                    Relay open = Relay.open(id, opener, B, 80, 1000);
                    if (shared.admit(open, true, true) == null) {
                        admitted.incrementAndGet();
                        worst.accumulateAndGet(shared.heldBy(B), Math::max);
                        if (id % 2 == 0) {
                            shared.observe(open.accept(1));
                            shared.observe(Relay.fin(id, opener, B, RelayDirection.TOWARD_ACCEPTOR, 0));
                            shared.observe(Relay.fin(id, opener, B, RelayDirection.TOWARD_OPENER, 0));
                        }
                    }
                }
            });
            running.add(thread);
            thread.start();
        }
        for (Thread thread : running) {
            thread.join();
        }
        assertThat(worst.get()).as("b's connections never above its limit").isLessThanOrEqualTo(1_000);
        assertThat(shared.heldBy(B)).isEqualTo(1_000).isEqualTo(shared.size());
        assertThat(shared.setups()).as("the odd ones were never answered").isEqualTo(1_000);
        shared.nodeLeft(B);
        assertThat(shared.size()).isZero();
        assertThat(shared.setups()).isZero();
        for (NodeId opener : openers) {
            assertThat(shared.heldBy(opener)).isZero();
        }
    }
}
