package io.traverse.routed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.traverse.identity.NodeId;
import io.traverse.security.IdentityKey;
import io.traverse.security.PeerSessions;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.RelayLink;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayKind;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Relayed connections sealed end to end between two nodes whose tables pass frames to each other as
 * a hub would, through a hook that can read, change or inject frames (what a hub on the path can
 * do): the bytes arrive verified and never in clear, and a changed or injected frame resets only
 * its own connection.
 */
@org.junit.jupiter.api.Timeout(60)
class SealedConnectionsTest {
    private static final long SEED = 0x5eaL;
    private static final String MARKER = "sealed-application-bytes";

    private final IdentityKey openerKey = IdentityKey.generate(seeded(1));
    private final IdentityKey acceptorKey = IdentityKey.generate(seeded(2));
    /** Every frame that crossed the "hub", as it passed. */
    private final List<Seen> wire = new CopyOnWriteArrayList<>();

    private record Seen(RelayKind kind, byte[] payload, int answerCode) {}

    private final PortEighty ports = new PortEighty();
    private final List<Socket> accepted = ports.accepted;
    private final ScheduledExecutorService openerLoop = Executors.newSingleThreadScheduledExecutor();
    private final ScheduledExecutorService acceptorLoop = Executors.newSingleThreadScheduledExecutor();
    /** What the "hub" does to each frame toward the acceptor (null: drops it). */
    private volatile UnaryOperator<Relay> towardAcceptor = f -> f;

    private RoutedConnections opener;
    private volatile RoutedConnection lastOpened;
    private RoutedConnections acceptor;

    @AfterEach
    void stop() throws Exception {
        for (Socket s : accepted) {
            s.close();
        }
        if (opener != null) {
            opener.close();
        }
        if (acceptor != null) {
            acceptor.close();
        }
        openerLoop.shutdownNow();
        acceptorLoop.shutdownNow();
    }

    @Test
    void aSealedConnectionCarriesBytesBothWaysVerifiedAndNeverInClear() throws Exception {
        connect(true, new PeerSessions(acceptorKey, seeded(4)), true);
        RoutedSocket client = open();
        assertThat(lastOpened.sealed()).isTrue();
        Socket server = acceptedSocket();
        byte[] data = payload(1 << 20);
        java.util.concurrent.CompletableFuture<byte[]> read = readingInBackground(server, data.length);
        OutputStream out = client.getOutputStream();
        out.write(data);
        client.shutdownOutput();
        byte[] digest = read.get(20, TimeUnit.SECONDS);
        assertThat(digest).isEqualTo(sha256(data));
        server.getOutputStream().write(digest);
        server.shutdownOutput();
        assertThat(client.getInputStream().readNBytes(64)).isEqualTo(digest);

        assertThat(wire).anyMatch(f -> f.kind() == RelayKind.SEALED);
        assertThat(wire).noneMatch(f -> f.kind() == RelayKind.DATA);
        assertThat(wire)
                .as("the application's bytes in clear in a frame")
                .noneMatch(f -> new String(f.payload(), StandardCharsets.ISO_8859_1).contains(MARKER));
    }

    @Test
    void aChangedSealedFrameResetsItsConnectionAndNoOther() throws Exception {
        connect(true, new PeerSessions(acceptorKey, seeded(4)), true);
        RoutedSocket victim = open();
        long victimId = lastOpened.key().id();
        Socket victimServer = acceptedSocket();
        RoutedSocket other = open();
        await().atMost(Duration.ofSeconds(10)).until(() -> accepted.size() == 2);
        Socket otherServer = accepted.get(1);
        towardAcceptor = f -> {
            if (f.kind() == RelayKind.SEALED && f.connectionId() == victimId) {
                ByteBuf p = f.payload();
                int at = p.readerIndex() + Relay.DATA_OFFSET_LENGTH;
                p.setByte(at, p.getByte(at) ^ 1); // one bit of the ciphertext
            }
            return f;
        };
        victim.getOutputStream().write(payload(1000));
        assertThatThrownBy(() -> victimServer.getInputStream().read())
                .hasMessageContaining("failed their end-to-end check");

        byte[] data = payload(500_000);
        java.util.concurrent.CompletableFuture<byte[]> read = readingInBackground(otherServer, data.length);
        other.getOutputStream().write(data);
        other.shutdownOutput();
        assertThat(read.get(20, TimeUnit.SECONDS)).isEqualTo(sha256(data));
    }

    @Test
    void bytesInjectedInClearIntoASealedConnectionResetIt() throws Exception {
        connect(true, new PeerSessions(acceptorKey, seeded(4)), true);
        open();
        Socket server = acceptedSocket();
        RoutedConnections.Key key = lastOpened.key();
        // A hub on the path sends DATA in the opener's name.
        Relay injected = Relay.data(
                key.id(),
                key.opener(),
                acceptorKey.id(),
                io.traverse.wire.RelayDirection.TOWARD_ACCEPTOR,
                0,
                new byte[] {6, 6, 6});
        acceptorLoop.execute(() -> acceptor.frame(injected));
        assertThatThrownBy(() -> server.getInputStream().read())
                .hasMessageContaining("in clear on a connection encrypted end to end");
    }

    @Test
    void aSealingNodeRefusesAnOpenInClear() throws Exception {
        connect(false, new PeerSessions(acceptorKey, seeded(4)), true);
        assertThatThrownBy(this::open)
                .hasRootCauseInstanceOf(AttemptFailedException.class)
                .hasMessageContaining("accepts relayed connections only encrypted end to end")
                .hasMessageContaining(openerKey.id().toString());
        assertThat(accepted).isEmpty();
    }

    @Test
    void anAcceptorThatLostItsSecretsGetsAFullAgreementOnceMore() throws Exception {
        connect(true, new PeerSessions(acceptorKey, seeded(4)), true);
        open().close();
        assertThat(opens()).isEqualTo(1);
        // The acceptor restarts with the same key and nothing kept: the opener resumes, is told so, and agrees afresh.
        acceptor.close();
        acceptor = table(
                acceptorKey.id(),
                acceptorLoop,
                new PeerSessions(acceptorKey, seeded(5)),
                true,
                openerLoop,
                () -> opener);
        RoutedSocket again = open();
        assertThat(lastOpened.sealed()).isTrue();
        assertThat(opens()).isEqualTo(3);
        assertThat(wire)
                .anyMatch(f -> f.kind() == RelayKind.REFUSE && f.answerCode() == RoutedConnections.UNKNOWN_SESSION);
        // The acceptor hands the connection to its application after sending the ACCEPT: wait for it.
        await().atMost(Duration.ofSeconds(10)).until(() -> accepted.size() == 2);
        byte[] data = payload(10_000);
        again.getOutputStream().write(data);
        again.shutdownOutput();
        assertThat(readAllAndDigest(accepted.get(1).getInputStream(), data.length))
                .isEqualTo(sha256(data));
    }

    @Test
    void aNodeAnsweringUnderAnotherNodesIdWithItsOwnKeyGetsNoConnection() throws Exception {
        IdentityKey impostor = IdentityKey.generate(seeded(6));
        // Frames for the acceptor's id reach a node with another key: it cannot take part in an
        // agreement meant for that id (a forged answer is refused by the opener: PeerSessionsTest).
        connect(true, new PeerSessions(impostor, seeded(7)), true);
        assertThatThrownBy(this::open).hasMessageContaining("signature over the key agreement does not verify");
        assertThat(accepted).isEmpty();
    }

    // ---- the two tables and the "hub" between them --------------------------------------------

    private void connect(boolean openerSeals, PeerSessions acceptorSessions, boolean acceptorSeals) {
        opener = table(
                openerKey.id(),
                openerLoop,
                new PeerSessions(openerKey, seeded(3)),
                openerSeals,
                acceptorLoop,
                () -> acceptor);
        acceptor = table(acceptorKey.id(), acceptorLoop, acceptorSessions, acceptorSeals, openerLoop, () -> opener);
    }

    private RoutedConnections table(
            NodeId self,
            ScheduledExecutorService loop,
            PeerSessions sessions,
            boolean seal,
            ScheduledExecutorService otherLoop,
            java.util.function.Supplier<RoutedConnections> other) {
        RelayLink link = new RelayLink() {
            @Override
            public NodeId localId() {
                return self;
            }

            @Override
            public void receiveWith(Receiver receiver) {}

            @Override
            public boolean send(Relay frame) {
                Relay passed = frame.destination().equals(acceptorKey.id()) ? towardAcceptor.apply(frame) : frame;
                wire.add(new Seen(
                        passed.kind(),
                        passed.payloadBytes(),
                        passed.kind() == RelayKind.REFUSE ? passed.answerCode() : -1));
                otherLoop.execute(() -> other.get().frame(passed));
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
        return new RoutedConnections(
                link,
                ports,
                (module, peer, reason) -> {},
                new ReceiveBudget(1 << 22, 1 << 20),
                60_000,
                5_000,
                sessions,
                seal);
    }

    /** The opener's socket of a new connection; {@link #lastOpened} is its connection. */
    private RoutedSocket open() throws Exception {
        RoutedConnections.Opening o = opener.open(acceptorKey.id(), 80);
        try {
            RoutedConnection c = o.answer().get(10, TimeUnit.SECONDS);
            lastOpened = c;
            return new RoutedSocket(c, openerKey.id(), openerKey.id());
        } catch (ExecutionException e) {
            throw new Exception(e.getCause().getMessage(), e.getCause());
        }
    }

    private Socket acceptedSocket() {
        await().atMost(Duration.ofSeconds(10)).until(() -> !accepted.isEmpty());
        return accepted.get(0);
    }

    private long opens() {
        return wire.stream().filter(f -> f.kind() == RelayKind.OPEN).count();
    }

    private static byte[] payload(int n) {
        byte[] marker = MARKER.getBytes(StandardCharsets.US_ASCII);
        byte[] data = new byte[n];
        SplittableRandom random = new SplittableRandom(SEED + n);
        for (int i = 0; i < n; i++) {
            data[i] = i % 100 < marker.length ? marker[i % 100] : (byte) random.nextInt(256);
        }
        return data;
    }

    /** Reads {@code socket} to end-of-stream on another thread: its length must be {@code expected}; the SHA-256. */
    private static java.util.concurrent.CompletableFuture<byte[]> readingInBackground(Socket socket, int expected) {
        return java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return readAllAndDigest(socket.getInputStream(), expected);
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
    }

    private static byte[] readAllAndDigest(InputStream in, int expected) throws Exception {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        byte[] buffer = new byte[8192];
        long length = 0;
        for (int n; (n = in.read(buffer)) >= 0; ) {
            digest.update(buffer, 0, n);
            length += n;
        }
        assertThat(length).isEqualTo(expected);
        return digest.digest();
    }

    private static byte[] sha256(byte[] data) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }

    private static SecureRandom seeded(long n) {
        try {
            SecureRandom random = SecureRandom.getInstance("SHA1PRNG");
            random.setSeed(SEED * 31 + n);
            return random;
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
