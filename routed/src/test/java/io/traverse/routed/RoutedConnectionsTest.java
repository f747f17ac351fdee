package io.traverse.routed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufAllocator;
import io.traverse.identity.NodeId;
import io.traverse.spi.RelayLink;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import io.traverse.wire.RelayKind;
import java.net.Socket;
import java.net.SocketException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The opener's side of the relayed-connection protocol against a recording link (the hub network
 * is tested for real in the hub module's RoutedConnectionTest): what a frame must name to be
 * taken as a connection's, and how closing orders FIN after DATA.
 */
class RoutedConnectionsTest {
    private static final NodeId SELF = NodeId.of("victim");
    private static final NodeId PEER = NodeId.of("peer");
    private static final NodeId MALLORY = NodeId.of("mallory");

    private final List<Relay> sent = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
    private final RelayLink link = new RecordingLink(loop, frame -> {});
    private final PortEighty ports = new PortEighty();
    private final List<Socket> accepted = ports.accepted;
    private final java.util.concurrent.atomic.AtomicInteger released = ports.released;

    private final RoutedConnections table =
            new RoutedConnections(link, ports, (module, peer, reason) -> {}, 1 << 20, 60_000);

    @AfterEach
    void stop() {
        table.close();
        loop.shutdownNow();
        sent.forEach(f -> {
            if (f.refCnt() > 0) {
                f.release();
            }
        });
    }

    private RoutedConnection opened() throws Exception {
        RoutedConnections.Opening o = table.open(PEER, 80);
        Relay open = sent.get(0);
        assertThat(open.kind()).isEqualTo(RelayKind.OPEN);
        table.frame(open.accept(1 << 20));
        return o.answer().get(5, TimeUnit.SECONDS);
    }

    @Test
    void aThirdNodeNamingTheOpenerAndIdCannotResetOrFeedTheConnection() throws Exception {
        RoutedConnection c = opened();
        long id = c.key().id();
        // Mallory's frames pass the hub's check (mallory is their source: the acceptor of a frame toward the opener).
        table.frame(Relay.reset(id, SELF, MALLORY, RelayDirection.TOWARD_OPENER, "spoofed"));
        table.frame(Relay.data(id, SELF, MALLORY, RelayDirection.TOWARD_OPENER, 0, new byte[] {6, 6, 6}));
        table.frame(Relay.data(id, SELF, PEER, RelayDirection.TOWARD_OPENER, 0, new byte[] {1, 2, 3}));
        byte[] read = new byte[8];
        assertThat(c.read(read, 0, 8, 1000)).as("only the peer's bytes").isEqualTo(3);
        assertThat(read).startsWith(1, 2, 3);
        assertThat(sent)
                .as("mallory's frames answered with RESETs to mallory")
                .anyMatch(f -> f.kind() == RelayKind.RESET && f.destination().equals(MALLORY));
    }

    @Test
    void aThirdNodeCannotAnswerAnOpenInThePeersName() throws Exception {
        RoutedConnections.Opening o = table.open(PEER, 80);
        Relay open = sent.get(0);
        table.frame(new Relay(
                open.connectionId(), SELF, MALLORY, RelayDirection.TOWARD_OPENER, 16, RelayKind.ACCEPT, new byte[] {
                    0, 0, 0, 1
                }));
        table.frame(Relay.reset(open.connectionId(), SELF, MALLORY, RelayDirection.TOWARD_OPENER, "spoofed"));
        assertThat(o.answer()).isNotDone();
        table.frame(open.accept(1024));
        assertThat(o.answer().get(5, TimeUnit.SECONDS)).isNotNull();
    }

    @Test
    void aHeldOpenReachesTheApplicationOnlyOnConfirmAndAResetDropsItUnseen() throws Exception {
        // As the acceptor: two OPENs asking to be held, from two attempts of one connect at PEER.
        Relay won = Relay.open(1, PEER, SELF, 80, 1024, true);
        Relay lost = Relay.open(2, PEER, SELF, 80, 1024, true);
        assertThat(won.holdUntilConfirmed()).isTrue();
        table.frame(won); // frame() releases what it is given
        table.frame(lost);
        assertThat(sent).filteredOn(f -> f.kind() == RelayKind.ACCEPT).hasSize(2);
        assertThat(accepted).as("held: nothing in the backlog yet").isEmpty();
        table.frame(Relay.frame(1, PEER, SELF, RelayDirection.TOWARD_ACCEPTOR, RelayKind.CONFIRM, new byte[0]));
        assertThat(accepted).as("the confirmed one").hasSize(1);
        table.frame(
                Relay.reset(2, PEER, SELF, RelayDirection.TOWARD_ACCEPTOR, "the opener gave way to another attempt"));
        assertThat(accepted).as("the loser never").hasSize(1);
        assertThat(released.get()).as("the loser's backlog slot went back").isEqualTo(1);
        // Without the flag, as before: in the backlog at once.
        table.frame(Relay.open(3, PEER, SELF, 80, 1024));
        assertThat(accepted).hasSize(2);
    }

    @Test
    void connectionIdsAreNotASequence() {
        long first = table.open(PEER, 80).connection().key().id();
        long second = table.open(PEER, 80).connection().key().id();
        assertThat(second - first).isNotEqualTo(1);
    }

    @Test
    void closeMarksTheSocketClosedEvenAfterAReset() throws Exception {
        RoutedConnection c = opened();
        c.onReset("the peer reset it");
        c.close();
        assertThat(c.isClosed()).isTrue();
        assertThatThrownBy(() -> c.read(new byte[1], 0, 1, 0))
                .isInstanceOf(SocketException.class)
                .hasMessage("Socket closed");
    }

    @Test
    void aResetAfterThePeersWholeStreamLeavesItReadableToEof() throws Exception {
        RoutedConnection c = opened();
        long id = c.key().id();
        c.shutdownOutput();
        // The peer answers, finishes and forgets the connection; a liveness PING of ours that
        // crossed its FIN comes back as a RESET before the application has read the answer.
        table.frame(Relay.data(id, SELF, PEER, RelayDirection.TOWARD_OPENER, 0, new byte[] {4, 5, 6}));
        table.frame(Relay.fin(id, SELF, PEER, RelayDirection.TOWARD_OPENER, 3));
        table.frame(Relay.reset(id, SELF, PEER, RelayDirection.TOWARD_OPENER, "node peer has no such connection"));
        byte[] read = new byte[8];
        assertThat(c.read(read, 0, 8, 1000)).isEqualTo(3);
        assertThat(read).startsWith(4, 5, 6);
        assertThat(c.read(read, 0, 8, 1000)).as("EOF").isEqualTo(-1);
    }

    @Test
    void aResetMidStreamThrowsAwayWhatWasNotRead() throws Exception {
        RoutedConnection c = opened();
        long id = c.key().id();
        table.frame(Relay.data(id, SELF, PEER, RelayDirection.TOWARD_OPENER, 0, new byte[] {4, 5, 6}));
        table.frame(Relay.reset(id, SELF, PEER, RelayDirection.TOWARD_OPENER, "the peer aborted"));
        assertThatThrownBy(() -> c.read(new byte[8], 0, 8, 1000))
                .isInstanceOf(SocketException.class)
                .hasMessageContaining("Connection reset: the peer aborted");
    }

    @Test
    void aConnectionFinishedBothWaysIsNotProbed() throws Exception {
        RoutedConnection c = opened();
        long id = c.key().id();
        c.shutdownOutput();
        assertThat(c.isFinishedBothWays()).as("the peer may still send").isFalse();
        table.frame(Relay.fin(id, SELF, PEER, RelayDirection.TOWARD_OPENER, 0));
        assertThat(c.isFinishedBothWays()).isTrue();
    }

    @Test
    void aSilentPeerGetsOnePingPerIntervalForAllItsConnectionsThenAllAreReset() throws Exception {
        RoutedConnections probing = new RoutedConnections(
                link, ports, (module, peer, reason) -> {}, 1 << 20, RoutedConnections.MIN_PROBE_MILLIS);
        try {
            List<RoutedConnection> open = new java.util.ArrayList<>();
            for (int i = 0; i < 20; i++) {
                RoutedConnections.Opening o = probing.open(PEER, 80);
                Relay openFrame = sent.get(sent.size() - 1);
                assertThat(openFrame.kind()).isEqualTo(RelayKind.OPEN);
                probing.frame(openFrame.accept(1 << 20));
                open.add(o.answer().get(5, TimeUnit.SECONDS));
            }
            Thread.sleep(2 * RoutedConnections.MIN_PROBE_MILLIS + 300);
            long pings = sent.stream().filter(f -> f.kind() == RelayKind.PING).count();
            assertThat(pings)
                    .as("PINGs for 20 silent connections to one node in about two intervals")
                    .isBetween(1L, 2L);
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(5))
                    .until(() -> open.stream().allMatch(RoutedConnection::isReset));
        } finally {
            probing.close();
        }
    }

    /**
     * Under load PONGs queue behind data for seconds while the peer works. A peer heard
     * from all the time is still pinged now and then, so that when it falls silent the limit
     * already allows for its measured round trip: PONGs 2.5 s late make silences of 3.5 s — a slow
     * path, not a dead one (the fixed limit of 3 intervals reset it after 3 s).
     */
    @Test
    void aBusyPeerIsMeasuredAndASlowPathIsNotTakenForADeadOne() throws Exception {
        RoutedConnections probing = new RoutedConnections(
                link, ports, (module, peer, reason) -> {}, 1 << 20, RoutedConnections.MIN_PROBE_MILLIS);
        ScheduledExecutorService peer = Executors.newSingleThreadScheduledExecutor();
        try {
            RoutedConnections.Opening o = probing.open(PEER, 80);
            probing.frame(sent.get(sent.size() - 1).accept(1 << 20));
            RoutedConnection c = o.answer().get(5, TimeUnit.SECONDS);
            long id = c.key().id();
            java.util.concurrent.atomic.AtomicBoolean busy = new java.util.concurrent.atomic.AtomicBoolean(true);
            java.util.concurrent.atomic.AtomicInteger answered = new java.util.concurrent.atomic.AtomicInteger();
            // The peer: a CREDIT every 200 ms while busy; every PING answered 2.5 s late.
            peer.scheduleAtFixedRate(
                    () -> {
                        if (busy.get()) {
                            probing.frame(Relay.credit(id, SELF, PEER, RelayDirection.TOWARD_OPENER, 1 << 20));
                        }
                    },
                    0,
                    200,
                    TimeUnit.MILLISECONDS);
            // Equal PINGs of one connection are distinct frames: an identity set.
            java.util.Set<Relay> seen = java.util.Collections.synchronizedSet(
                    java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
            peer.scheduleAtFixedRate(
                    () -> {
                        for (Relay f : sent) {
                            if (f.kind() == RelayKind.PING && seen.add(f)) {
                                peer.schedule(
                                        () -> {
                                            answered.incrementAndGet();
                                            probing.frame(f.pong(1 << 20));
                                        },
                                        2500,
                                        TimeUnit.MILLISECONDS);
                            }
                        }
                    },
                    0,
                    50,
                    TimeUnit.MILLISECONDS);
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> answered.get() >= 1);
            assertThat(c.isReset()).isFalse();
            busy.set(false);
            Thread.sleep(5_000);
            assertThat(c.isReset()).as("5 s on a path whose PONGs take 2.5 s").isFalse();
            assertThat(seen).as("the silent peer is pinged").hasSizeGreaterThan(1);
        } finally {
            peer.shutdownNow();
            probing.close();
        }
    }

    /**
     * A node that stood still (a JVM-wide pause; its prober could not run) must not blame its
     * peers for the silence: what they sent meanwhile waits unread. A silent peer is still reset
     * once it has been silent for the limit while this node runs.
     */
    @Test
    void thisNodesOwnStallIsNotItsPeersSilence() throws Exception {
        ScheduledExecutorService ownLoop = Executors.newSingleThreadScheduledExecutor();
        RelayLink stallingLink = new RecordingLink(ownLoop, frame -> {});
        RoutedConnections probing = new RoutedConnections(
                stallingLink, ports, (module, peer, reason) -> {}, 1 << 20, RoutedConnections.MIN_PROBE_MILLIS);
        try {
            RoutedConnections.Opening o = probing.open(PEER, 80);
            probing.frame(sent.get(sent.size() - 1).accept(1 << 20));
            RoutedConnection c = o.answer().get(5, TimeUnit.SECONDS);
            Thread.sleep(600); // the prober has ticked: it knows when it last ran
            // This node stands still for 4 s (more than the 3 s limit) while the peer says nothing.
            ownLoop.submit(() -> {
                        try {
                            Thread.sleep(4_000);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    })
                    .get(10, TimeUnit.SECONDS);
            Thread.sleep(500);
            assertThat(c.isReset()).as("right after this node's own 4-s stall").isFalse();
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(8))
                    .until(c::isReset);
        } finally {
            probing.close();
            ownLoop.shutdownNow();
        }
    }

    /**
     * Nothing of an accepted connection may leave before its ACCEPT: the opener does not know the
     * connection until the ACCEPT comes, and answers anything else with a RESET. The prober sends
     * PINGs on the connections the table lists, so the table must list an accepted connection only
     * once its ACCEPT is on its way (under load a PING got in between twice in 10,000 set-ups).
     */
    @Test
    void anAcceptedConnectionIsListedOnlyOnceItsAcceptIsOnItsWay() throws Exception {
        List<Integer> listedWhenAccepting = new CopyOnWriteArrayList<>();
        RoutedConnections[] self = new RoutedConnections[1];
        RelayLink watching = new RecordingLink(loop, frame -> {
            if (frame.kind() == RelayKind.ACCEPT) {
                listedWhenAccepting.add(self[0].size());
            }
        });
        self[0] = new RoutedConnections(watching, ports, (module, peer, reason) -> {}, 1 << 20, 60_000);
        try {
            self[0].frame(Relay.open(7, PEER, SELF, 80, 1 << 20, false));
            self[0].frame(Relay.open(8, PEER, SELF, 80, 1 << 20, true));
            assertThat(listedWhenAccepting)
                    .as("connections the prober could PING while each ACCEPT was being sent")
                    .containsExactly(0, 1);
            assertThat(self[0].size()).isEqualTo(2);
            assertThat(accepted).hasSize(1);
        } finally {
            self[0].close();
        }
    }

    @Test
    void theFinCarriesTheLengthOfEverythingWrittenAndComesLast() throws Exception {
        RoutedConnection c = opened();
        c.write(new byte[100_000], 0, 100_000);
        c.close();
        List<Relay> mine = sent.stream()
                .filter(f -> f.direction() == RelayDirection.TOWARD_ACCEPTOR && f.kind() != RelayKind.OPEN)
                .toList();
        Relay last = mine.get(mine.size() - 1);
        assertThat(last.kind()).isEqualTo(RelayKind.FIN);
        assertThat(last.streamOffset()).isEqualTo(100_000);
    }

    @Test
    void anAcceptedConnectionGrantsLittleUntilTheApplicationReadsThenAWindow() throws Exception {
        table.frame(Relay.open(7, PEER, SELF, 80, 1 << 20));
        Relay accept = sent.get(0);
        assertThat(accept.kind()).isEqualTo(RelayKind.ACCEPT);
        assertThat(accept.credit()).isEqualTo(RoutedConnections.BACKLOG_CREDIT);
        assertThat(accepted).hasSize(1);
        table.frame(Relay.data(7, PEER, SELF, RelayDirection.TOWARD_ACCEPTOR, 0, new byte[1000]));
        assertThat(accepted.get(0).getInputStream().read(new byte[1000])).isEqualTo(1000);
        Relay credit = sent.get(sent.size() - 1);
        assertThat(credit.kind()).isEqualTo(RelayKind.CREDIT);
        assertThat(credit.credit()).as("a window beyond what was read").isEqualTo(1000 + (1 << 20));
        // Past the credit the opener was granted: that connection is reset, told why.
        long offset = 1000;
        for (int i = 0; i < 8; i++) {
            table.frame(
                    Relay.data(7, PEER, SELF, RelayDirection.TOWARD_ACCEPTOR, offset, new byte[Relay.MAX_DATA_BYTES]));
            offset += Relay.MAX_DATA_BYTES;
        }
        assertThat(accepted.get(0).getInputStream().available())
                .as("a whole window queued, within credit")
                .isEqualTo(1 << 20);
        table.frame(Relay.data(7, PEER, SELF, RelayDirection.TOWARD_ACCEPTOR, offset, new byte[1]));
        assertThatThrownBy(() -> accepted.get(0).getInputStream().read())
                .isInstanceOf(SocketException.class)
                .hasMessageContaining("past the credit");
    }

    @Test
    void anOpenToAPortNobodyListensOnIsRefusedWithThatAnswer() {
        table.frame(Relay.open(8, PEER, SELF, 81, 1 << 20));
        Relay refuse = sent.get(0);
        assertThat(refuse.kind()).isEqualTo(RelayKind.REFUSE);
        assertThat(refuse.answerCode()).isEqualTo(io.traverse.protocol.IdentityHandshake.Answer.PORT_NOT_FOUND.code);
        assertThat(refuse.reason()).contains("virtual port 81");
    }

    @Test
    void abortSendsAResetWhateverWasRead() throws Exception {
        RoutedConnection c = opened();
        c.abort();
        assertThat(c.isClosed()).isTrue();
        assertThat(sent.get(sent.size() - 1).kind()).isEqualTo(RelayKind.RESET);
    }

    /**
     * The node's application reads none of 40 connections, all opened before any is accepted, while
     * each peer sends all the credit it was granted: the node buffers no more than its receive budget
     * plus the floor per connection, a connection whose application reads is still topped up, and
     * closing gives the budget back.
     */
    @Test
    void aNodeThatReadsNoneOfItsConnectionsBuffersAtMostItsBudgetPlusTheFloorEach() throws Exception {
        int budgetBytes = 1 << 20;
        int count = 40;
        RoutedConnections budgeted = new RoutedConnections(
                link,
                ports,
                (module, peer, reason) -> {},
                new ReceiveBudget(budgetBytes, 1 << 20),
                60_000,
                5_000,
                null,
                false);
        try {
            List<RoutedConnection> connections = new java.util.ArrayList<>();
            List<RoutedConnections.Opening> openings = new java.util.ArrayList<>();
            for (int i = 0; i < count; i++) {
                openings.add(budgeted.open(PEER, 80));
            }
            List<Relay> opens = List.copyOf(sent);
            long offered = 0;
            for (int i = 0; i < count; i++) {
                Relay open = opens.get(i);
                budgeted.frame(open.accept(1 << 20));
                RoutedConnection c = openings.get(i).answer().get(5, TimeUnit.SECONDS);
                connections.add(c);
                long credit = open.credit();
                assertThat(credit).as("connection %d's initial credit", i).isGreaterThanOrEqualTo(ReceiveBudget.FLOOR);
                for (long at = 0; at < credit; at += 32 * 1024) {
                    byte[] bytes = new byte[(int) Math.min(32 * 1024, credit - at)];
                    budgeted.frame(
                            Relay.data(open.connectionId(), SELF, PEER, RelayDirection.TOWARD_OPENER, at, bytes));
                }
                offered += credit;
            }
            assertThat(sent)
                    .as("every DATA was within its credit: nothing reset")
                    .noneMatch(f -> f.kind() == RelayKind.RESET);
            assertThat(offered)
                    .as("bytes buffered for an application that reads nothing")
                    .isLessThanOrEqualTo(budgetBytes + (long) count * ReceiveBudget.FLOOR)
                    .isEqualTo(budgeted.budget().outstanding());

            RoutedConnection reader = connections.get(count - 1);
            sent.clear();
            byte[] buffer = new byte[1 << 16];
            long read = 0;
            while (reader.available() > 0) {
                read += reader.read(buffer, 0, buffer.length, 1000);
            }
            assertThat(read).isEqualTo(ReceiveBudget.FLOOR);
            long expectedLimit = read + ReceiveBudget.FLOOR;
            assertThat(sent)
                    .as("a connection that reads is topped up to the floor beyond what it read, the budget being spent")
                    .anyMatch(f -> f.kind() == RelayKind.CREDIT && f.credit() == expectedLimit);

            connections.forEach(RoutedConnection::close);
            assertThat(budgeted.budget().outstanding())
                    .as("closed connections give their part of the budget back")
                    .isZero();
        } finally {
            budgeted.close();
        }
    }

    /**
     * A stream that ended (FIN) stays readable after a RESET, and what it holds stays counted in the
     * receive budget until the application reads it or closes; a connection that never got answered
     * gives its reservation back.
     */
    @Test
    void bytesKeptReadableAfterAResetStayCountedUntilReadOrClosed() throws Exception {
        RoutedConnections budgeted = new RoutedConnections(
                link,
                ports,
                (module, peer, reason) -> {},
                new ReceiveBudget(1 << 20, 1 << 20),
                60_000,
                5_000,
                null,
                false);
        try {
            RoutedConnections.Opening refused = budgeted.open(PEER, 80);
            Relay refusedOpen = sent.get(sent.size() - 1);
            budgeted.frame(refusedOpen.refuse(io.traverse.protocol.IdentityHandshake.Answer.PORT_NOT_FOUND.code, "no"));
            assertThat(refused.answer()).isCompletedExceptionally();
            assertThat(budgeted.budget().outstanding())
                    .as("a refused opening gives its reservation back")
                    .isZero();

            RoutedConnections.Opening o = budgeted.open(PEER, 80);
            Relay open = sent.get(sent.size() - 1);
            budgeted.frame(open.accept(1 << 20));
            RoutedConnection c = o.answer().get(5, TimeUnit.SECONDS);
            long id = open.connectionId();
            budgeted.frame(Relay.data(id, SELF, PEER, RelayDirection.TOWARD_OPENER, 0, new byte[100_000]));
            budgeted.frame(Relay.fin(id, SELF, PEER, RelayDirection.TOWARD_OPENER, 100_000));
            budgeted.frame(Relay.reset(id, SELF, PEER, RelayDirection.TOWARD_OPENER, "gone"));
            assertThat(budgeted.budget().members()).isZero();
            assertThat(budgeted.budget().outstanding())
                    .as("only what was received and not read")
                    .isEqualTo(100_000);
            byte[] buffer = new byte[60_000];
            assertThat(c.read(buffer, 0, buffer.length, 1000)).isEqualTo(60_000);
            assertThat(budgeted.budget().outstanding()).isEqualTo(40_000);
            c.close();
            assertThat(budgeted.budget().outstanding())
                    .as("closing throws the rest away")
                    .isZero();
        } finally {
            budgeted.close();
        }
    }

    /** A link on {@code loop} that records every frame sent, after {@code beforeSend} has seen it. */
    private final class RecordingLink implements RelayLink {
        private final ScheduledExecutorService loop;
        private final java.util.function.Consumer<Relay> beforeSend;

        RecordingLink(ScheduledExecutorService loop, java.util.function.Consumer<Relay> beforeSend) {
            this.loop = loop;
            this.beforeSend = beforeSend;
        }

        @Override
        public NodeId localId() {
            return SELF;
        }

        @Override
        public void receiveWith(Receiver receiver) {
            // frames are handed to the table directly
        }

        @Override
        public boolean send(Relay frame) {
            beforeSend.accept(frame);
            sent.add(frame);
            return true;
        }

        @Override
        public boolean isLinked() {
            return true;
        }

        @Override
        public ScheduledExecutorService loop() {
            return loop;
        }

        @Override
        public ByteBufAllocator allocator() {
            return ByteBufAllocator.DEFAULT;
        }
    }
}
