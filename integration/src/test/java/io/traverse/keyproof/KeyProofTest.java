package io.traverse.keyproof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hublink.RecordingTap;
import io.traverse.identity.HostKey;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.IdentityHandshake.Answer;
import io.traverse.protocol.IdentityHandshake.Kind;
import io.traverse.protocol.IdentityHandshake.Reply;
import io.traverse.protocol.IdentityHandshake.Request;
import io.traverse.security.IdentityKey;
import io.traverse.security.PeerSessions;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The key proof of the identity handshake on kernel sockets (docs/protocol.md, "Key proof"), with
 * real nodes on loopback: both ends prove their keys (a full agreement at first contact, resumed
 * afterwards), a node posing under another's id is refused, on either end, without disturbing an
 * honest connection, and a captured handshake sent again gets nothing into the accept queue.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KeyProofTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int BYTES = 256 * 1024;

    private final List<AutoCloseable> open = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private Traverse server;
    private Traverse client;
    private TraverseServerSocket listening;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(HostKey.local().isPresent(), "needs /proc to know this host's key");
        server = node();
        client = node();
        listening = track(server.serverSocketFactory().createServerSocket(0, 50));
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        threads.shutdownNow();
    }

    private Traverse node() throws IOException {
        return track(Traverse.start(
                TraverseConfig.builder().bind("127.0.0.1").modules("direct").build()));
    }

    private <T extends AutoCloseable> T track(T closeable) {
        open.add(closeable);
        return closeable;
    }

    @Test
    void twoNodesProveTheirKeysInFullAtFirstContactThenResumed() throws Exception {
        try (RecordingTap tap = new RecordingTap(server.identity().addresses().get(0), threads)) {
            VirtualSocketAddress viaTap = through(tap);
            for (int round = 0; round < 2; round++) {
                transfer(viaTap, 1000 + round);
                List<RecordingTap.Capture> relayed = tap.connections();
                RecordingTap.Capture c = relayed.get(relayed.size() - 1);
                Request request = decodeRequest(c.fromClient());
                assertThat(request.provesKey())
                        .as("round %d: the request proves a key", round)
                        .isTrue();
                // The offer's first byte is its mode: 1 full agreement, 2 resumed.
                assertThat(request.keyOffer()[0])
                        .as("round %d: offer mode", round)
                        .isEqualTo((byte) (round == 0 ? 1 : 2));
                Reply reply = IdentityHandshake.readReply(new java.io.ByteArrayInputStream(c.fromServer()));
                assertThat(reply.answer()).isEqualTo(Answer.ACCEPT);
                assertThat(reply.keyAnswer())
                        .as("round %d: the listener proved its key", round)
                        .isNotNull();
                assertThat(reply.keyAnswer()[0]).isEqualTo((byte) (round == 0 ? 1 : 2));
            }
        }
    }

    @Test
    void aReplayedHandshakeGetsNothingIntoTheAcceptQueue() throws Exception {
        try (RecordingTap tap = new RecordingTap(server.identity().addresses().get(0), threads)) {
            VirtualSocketAddress viaTap = through(tap);
            transfer(viaTap, 1); // full
            transfer(viaTap, 2); // resumed: its offer's count is admitted once
            List<RecordingTap.Capture> captures = tap.connections();
            assertThat(captures).hasSize(2);
            for (RecordingTap.Capture captured : captures) {
                boolean full = captured == captures.get(0);
                byte[] everything = captured.fromClient(); // request, Finished (full only), application bytes
                int requestLength = IdentityHandshake.HEADER_LENGTH
                        + IdentityHandshake.checkHeader(
                                ByteBuffer.wrap(everything, 0, IdentityHandshake.HEADER_LENGTH));
                try (Socket replay = new Socket(
                        LOOPBACK, server.identity().addresses().get(0).getPort())) {
                    replay.setSoTimeout(5_000);
                    replay.getOutputStream().write(everything, 0, requestLength);
                    Reply reply = IdentityHandshake.readReply(replay.getInputStream());
                    if (full) {
                        // The listener answers a full request (its nonces are new) ...
                        assertThat(reply.answer()).isEqualTo(Answer.ACCEPT);
                        assertThat(reply.keyAnswer()).isNotNull();
                        // ... and finds the old Finished wrong for them. It closes with the application
                        // bytes behind the Finished unread, so the rest of this write may meet its reset.
                        try {
                            replay.getOutputStream()
                                    .write(everything, requestLength, everything.length - requestLength);
                        } catch (java.net.SocketException e) {
                            assertThat(e.getMessage()).containsAnyOf("Broken pipe", "reset");
                        }
                    } else {
                        // A resumed request's count was admitted already: refused at the request.
                        assertThat(reply.answer()).isEqualTo(Answer.REFUSED);
                        assertThat(reply.reason()).contains("replayed");
                    }
                    assertClosed(replay);
                }
                try (Socket replay = new Socket(
                        LOOPBACK, server.identity().addresses().get(0).getPort())) {
                    replay.setSoTimeout(5_000);
                    // All at once: bytes before the reply. No more than a send buffer holds: the listener
                    // closes with them unread, and a write still under way would meet that reset.
                    replay.getOutputStream().write(everything, 0, Math.min(everything.length, requestLength + 4096));
                    assertThat(IdentityHandshake.readReply(replay.getInputStream())
                                    .answer())
                            .isIn(Answer.PROTOCOL_ERROR, Answer.REFUSED);
                }
            }
            listening.setSoTimeout(500);
            assertThatThrownBy(listening::accept).isInstanceOf(SocketTimeoutException.class);
            listening.setSoTimeout(0);
            transfer(viaTap, 3); // the listener serves on
        }
    }

    @Test
    void aClientPosingAsAnotherNodeIsRefusedAndAnHonestConnectionGoesOn() throws Exception {
        CompletableFuture<Void> honest = CompletableFuture.runAsync(
                () -> {
                    try {
                        for (int i = 0; i < 5; i++) {
                            transfer(listeningAddress(), 10 + i);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        NodeIdentity posedAs = client.identity(); // a real node's id, whose key the impostor lacks
        PeerSessions impostor = new PeerSessions(IdentityKey.generate(), new SecureRandom());
        byte[] request = IdentityHandshake.encode(
                new Request(Kind.CONNECT, listening.getLocalPort(), server.identity(), posedAs));
        for (int i = 0; i < 5; i++) {
            // With its own key under the other's id: the key's hash is not the id.
            Reply withOwnKey = exchange(
                    HandshakeProof.offer(impostor, server.identity().id().orElseThrow(), request)
                            .request());
            assertThat(withOwnKey.answer()).isEqualTo(Answer.REFUSED);
            assertThat(withOwnKey.reason())
                    .contains("refused the key proof")
                    .contains(posedAs.id().orElseThrow().toString());
            // Without a proof at all.
            Reply without = exchange(request);
            assertThat(without.answer()).isEqualTo(Answer.REFUSED);
            assertThat(without.reason()).contains("only with a key proof");
        }
        honest.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aListenerPosingAsAnotherNodeIsRefusedByTheClient() throws Exception {
        IdentityKey impostorKey = IdentityKey.generate();
        try (ServerSocket fake = new ServerSocket(0, 50, LOOPBACK)) {
            VirtualSocketAddress posing = new VirtualSocketAddress(
                    NodeIdentity.builder()
                            .id(server.identity().id().orElseThrow()) // the server's id, not the fake's
                            .hostKey(HostKey.local().get())
                            .address(new InetSocketAddress(LOOPBACK, fake.getLocalPort()))
                            .build(),
                    80);
            // First an ACCEPT of before (no key answer), then a full answer made with the fake's own key.
            CompletableFuture<Void> answering = CompletableFuture.runAsync(
                    () -> {
                        try {
                            for (int i = 0; i < 2; i++) {
                                try (Socket s = fake.accept()) {
                                    Request r = readRequest(s.getInputStream());
                                    assertThat(r.provesKey()).isTrue();
                                    s.getOutputStream()
                                            .write(
                                                    i == 0
                                                            ? IdentityHandshake.encodeAccept()
                                                            : IdentityHandshake.encodeAccept(
                                                                    false, fullAnswerSignedBy(impostorKey)));
                                    s.getInputStream().read(); // until the client closes
                                }
                            }
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads);
            assertThatThrownBy(() -> client.socketFactory().connect(posing, 10_000))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("accepted without proving its key");
            assertThatThrownBy(() -> client.socketFactory().connect(posing, 10_000))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("did not prove the key of node "
                            + server.identity().id().orElseThrow())
                    .hasMessageContaining("is the key of node " + impostorKey.id());
            answering.get(10, TimeUnit.SECONDS);
        }
        transfer(listeningAddress(), 7); // the real server is fine
    }

    /** Closed by the listener: end of stream, or a reset when it closed with bytes unread. */
    private static void assertClosed(Socket s) throws IOException {
        try {
            assertThat(s.getInputStream().read()).as("closed").isEqualTo(-1);
        } catch (java.net.SocketException e) {
            assertThat(e.getMessage()).contains("reset");
        }
    }

    /** A full answer's layout with a real key but a signature over nothing: enough to name the key. */
    private static byte[] fullAnswerSignedBy(IdentityKey key) {
        byte[] publicKey = key.publicKey().getEncoded();
        ByteBuffer b = ByteBuffer.allocate(1 + 1 + publicKey.length + 1 + 32 + 16 + 1 + 64);
        b.put((byte) 1).put((byte) publicKey.length).put(publicKey);
        b.put((byte) 32).put(new byte[32]);
        b.put(new byte[16]);
        b.put((byte) 64).put(new byte[64]);
        return b.array();
    }

    /** The server's id and host key at the tap's address: every byte of the handshake passes the tap. */
    private VirtualSocketAddress through(RecordingTap tap) {
        return new VirtualSocketAddress(
                NodeIdentity.builder()
                        .id(server.identity().id().orElseThrow())
                        .hostKey(HostKey.local().get())
                        .address(tap.address())
                        .build(),
                listening.getLocalPort());
    }

    private VirtualSocketAddress listeningAddress() {
        return (VirtualSocketAddress) listening.getLocalSocketAddress();
    }

    /** Connects, sends {@link #BYTES} seeded bytes, and checks the length and SHA-256 the server read. */
    private void transfer(VirtualSocketAddress to, long seed) throws Exception {
        byte[] data = new byte[BYTES];
        new Random(seed).nextBytes(data);
        CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(
                () -> {
                    try (Socket s = listening.accept()) {
                        return s.getInputStream().readAllBytes();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        try (Socket s = client.socketFactory().connect(to, 10_000)) {
            s.getOutputStream().write(data);
            s.shutdownOutput();
            byte[] got = received.get(20, TimeUnit.SECONDS);
            assertThat(got.length).isEqualTo(BYTES);
            assertThat(sha256(got)).isEqualTo(sha256(data));
        }
    }

    private Reply exchange(byte[] request) throws IOException {
        try (Socket s =
                new Socket(LOOPBACK, server.identity().addresses().get(0).getPort())) {
            s.setSoTimeout(5_000);
            s.getOutputStream().write(request);
            return IdentityHandshake.readReply(s.getInputStream());
        }
    }

    private static Request readRequest(InputStream in) throws IOException {
        DataInputStream data = new DataInputStream(in);
        byte[] header = new byte[IdentityHandshake.HEADER_LENGTH];
        data.readFully(header);
        int length = IdentityHandshake.checkHeader(ByteBuffer.wrap(header));
        byte[] body = new byte[length];
        data.readFully(body);
        return IdentityHandshake.decodeRequest(IdentityHandshake.code(ByteBuffer.wrap(header)), ByteBuffer.wrap(body));
    }

    private static Request decodeRequest(byte[] fromClient) throws IOException {
        return readRequest(new java.io.ByteArrayInputStream(fromClient));
    }

    private static byte[] sha256(byte[] bytes) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(bytes);
    }
}
