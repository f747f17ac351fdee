package io.traverse.routed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufAllocator;
import io.traverse.identity.NodeId;
import io.traverse.spi.RelayLink;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayDirection;
import io.traverse.wire.RelayKind;
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
    private final RelayLink link = new RelayLink() {
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
    };
    private final RoutedConnections table = new RoutedConnections(link, null, (module, peer, reason) -> { }, 1 << 20, 60_000);

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
        assertThat(sent).as("mallory's frames answered with RESETs to mallory").anyMatch(f -> f.kind() == RelayKind.RESET
                && f.destination().equals(MALLORY));
    }

    @Test
    void aThirdNodeCannotAnswerAnOpenInThePeersName() throws Exception {
        RoutedConnections.Opening o = table.open(PEER, 80);
        Relay open = sent.get(0);
        table.frame(new Relay(open.connectionId(), SELF, MALLORY, RelayDirection.TOWARD_OPENER, 16, RelayKind.ACCEPT,
                new byte[] {0, 0, 0, 1}));
        table.frame(Relay.reset(open.connectionId(), SELF, MALLORY, RelayDirection.TOWARD_OPENER, "spoofed"));
        assertThat(o.answer()).isNotDone();
        table.frame(open.accept(1024));
        assertThat(o.answer().get(5, TimeUnit.SECONDS)).isNotNull();
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
        assertThatThrownBy(() -> c.read(new byte[1], 0, 1, 0)).isInstanceOf(SocketException.class).hasMessage("Socket closed");
    }

    @Test
    void theFinCarriesTheLengthOfEverythingWrittenAndComesLast() throws Exception {
        RoutedConnection c = opened();
        c.write(new byte[100_000], 0, 100_000);
        c.close();
        List<Relay> mine = sent.stream().filter(f -> f.direction() == RelayDirection.TOWARD_ACCEPTOR && f.kind() != RelayKind.OPEN)
                .toList();
        Relay last = mine.get(mine.size() - 1);
        assertThat(last.kind()).isEqualTo(RelayKind.FIN);
        assertThat(last.streamOffset()).isEqualTo(100_000);
    }

    @Test
    void abortSendsAResetWhateverWasRead() throws Exception {
        RoutedConnection c = opened();
        c.abort();
        assertThat(c.isClosed()).isTrue();
        assertThat(sent.get(sent.size() - 1).kind()).isEqualTo(RelayKind.RESET);
    }
}
