package io.traverse.keyproof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.traverse.Protection;
import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hublink.RecordingTap;
import io.traverse.identity.HostKey;
import io.traverse.identity.NodeIdentity;
import io.traverse.protocol.HandshakeProof;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.security.IdentityKey;
import io.traverse.security.LinkTls;
import io.traverse.security.PeerSessions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
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
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code traverse.encrypt=all} on direct connections between real nodes on loopback
 * (docs/protocol.md, "TLS on kernel sockets"): the identity handshake agrees on TLS, both ends get
 * an {@link SSLSocket} bound to the other node's key, data crosses both ways with a half-close each
 * way, the wire carries none of it in clear, and the second connection resumes. A node that
 * requires TLS imposes it on a client that did not ask, refuses an anonymous one, and cuts off a
 * client that trickles its TLS at the handshake timeout; an on-path party that passes the identity
 * handshake on and then answers TLS with its own key is refused by the client.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KernelSocketTlsTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int BYTES = 256 * 1024;

    private final List<AutoCloseable> open = java.util.Collections.synchronizedList(new ArrayList<>());
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void needsHostKey() {
        assumeTrue(HostKey.local().isPresent(), "needs /proc to know this host's key");
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        threads.shutdownNow();
    }

    private Traverse node(String encrypt) throws IOException {
        return track(Traverse.start(TraverseConfig.builder()
                .bind("127.0.0.1")
                .modules("direct")
                .set("traverse.encrypt", encrypt)
                .build()));
    }

    private <T extends AutoCloseable> T track(T closeable) {
        open.add(closeable);
        return closeable;
    }

    @Test
    void bothEndsRunTlsBoundToTheNodesKeysAndTheWireCarriesNoPlaintext() throws Exception {
        Traverse server = node("all");
        Traverse client = node("all");
        TraverseServerSocket listening = track(server.serverSocketFactory().createServerSocket(0, 50));
        try (RecordingTap tap = new RecordingTap(server.identity().addresses().get(0), threads)) {
            VirtualSocketAddress viaTap = through(server, tap, listening.getLocalPort());
            byte[] up = seeded(1, BYTES);
            byte[] down = seeded(2, BYTES);
            for (int round = 0; round < 2; round++) {
                CompletableFuture<Socket> accepted = acceptAndAnswer(listening, down);
                try (Socket s = client.socketFactory().connect(viaTap, 10_000)) {
                    assertThat(s).isInstanceOf(SSLSocket.class);
                    assertThat(client.connectionInfo(s).orElseThrow().protection())
                            .isEqualTo(Protection.TLS);
                    assertThat(((SSLSocket) s).getSession().getProtocol()).isEqualTo("TLSv1.3");
                    exchange(s, up, down);
                    Socket a = accepted.get(20, TimeUnit.SECONDS);
                    assertThat(a).isInstanceOf(SSLSocket.class);
                    assertThat(server.connectionInfo(a).orElseThrow().protection())
                            .isEqualTo(Protection.TLS);
                    assertThat(LinkTls.peerId(((SSLSocket) a).getSession()))
                            .isEqualTo(client.identity().id().orElseThrow());
                }
            }
            List<RecordingTap.Capture> captures = tap.connections();
            assertThat(captures).hasSize(2);
            for (RecordingTap.Capture c : captures) {
                assertThat(RecordingTap.indexOf(c.fromClient(), java.util.Arrays.copyOfRange(up, 1000, 1032)))
                        .as("the client's bytes in clear on the wire")
                        .isNegative();
                assertThat(RecordingTap.indexOf(c.fromServer(), java.util.Arrays.copyOfRange(down, 1000, 1032)))
                        .as("the server's bytes in clear on the wire")
                        .isNegative();
                IdentityHandshake.Request request = readRequest(c.fromClient());
                assertThat(request.tls()).as("the request asks for TLS").isTrue();
            }
            // The second TLS handshake resumed: the server sent no certificate, so fewer bytes for the same data.
            assertThat(captures.get(1).fromServer().length)
                    .as("bytes from the server, resumed against full")
                    .isLessThan(captures.get(0).fromServer().length - 200);
        }
    }

    @Test
    void aClientThatAsksGetsTlsFromANodeThatDoesNotRequireIt() throws Exception {
        Traverse server = node("relayed");
        Traverse client = node("all");
        TraverseServerSocket listening = track(server.serverSocketFactory().createServerSocket(0, 50));
        byte[] up = seeded(3, BYTES);
        byte[] down = seeded(4, BYTES);
        CompletableFuture<Socket> accepted = acceptAndAnswer(listening, down);
        try (Socket s = client.socketFactory().connect(listening.getLocalSocketAddress(), 10_000)) {
            assertThat(s).isInstanceOf(SSLSocket.class);
            exchange(s, up, down);
            assertThat(accepted.get(20, TimeUnit.SECONDS)).isInstanceOf(SSLSocket.class);
        }
    }

    @Test
    void aNodeThatRequiresTlsImposesItOnAClientThatDidNotAskAndRefusesAnAnonymousOne() throws Exception {
        Traverse server = node("all");
        Traverse client = node("relayed");
        TraverseServerSocket listening = track(server.serverSocketFactory().createServerSocket(0, 50));
        byte[] up = seeded(5, BYTES);
        byte[] down = seeded(6, BYTES);
        CompletableFuture<Socket> accepted = acceptAndAnswer(listening, down);
        try (Socket s = client.socketFactory().connect(listening.getLocalSocketAddress(), 10_000)) {
            assertThat(s).isInstanceOf(SSLSocket.class);
            assertThat(client.connectionInfo(s).orElseThrow().protection()).isEqualTo(Protection.TLS);
            exchange(s, up, down);
            assertThat(accepted.get(20, TimeUnit.SECONDS)).isInstanceOf(SSLSocket.class);
        }
        // An anonymous request names no id that TLS could bind: refused, saying why.
        try (Socket raw =
                new Socket(LOOPBACK, server.identity().addresses().get(0).getPort())) {
            raw.setSoTimeout(5_000);
            raw.getOutputStream()
                    .write(IdentityHandshake.encode(new IdentityHandshake.Request(
                            IdentityHandshake.Kind.CONNECT, listening.getLocalPort(), server.identity(), null)));
            IdentityHandshake.Reply reply = IdentityHandshake.readReply(raw.getInputStream());
            assertThat(reply.answer()).isEqualTo(IdentityHandshake.Answer.REFUSED);
            assertThat(reply.reason())
                    .contains("only in TLS (traverse.encrypt=all)")
                    .contains("names no source");
        }
        listening.setSoTimeout(300);
        assertThatThrownBy(listening::accept).isInstanceOf(SocketTimeoutException.class);
    }

    @Test
    void aClientThatTricklesItsTlsIsCutOffAtTheHandshakeTimeoutAndOthersGoOn() throws Exception {
        Traverse server = track(Traverse.start(TraverseConfig.builder()
                .bind("127.0.0.1")
                .modules("direct")
                .set("traverse.encrypt", "all")
                .set("traverse.handshake.timeout", "1s")
                .build()));
        TraverseServerSocket listening = track(server.serverSocketFactory().createServerSocket(0, 1));
        IdentityKey key = IdentityKey.generate();
        NodeIdentity self = NodeIdentity.builder()
                .id(key.id())
                .hostKey(HostKey.local().get())
                .address(new InetSocketAddress(LOOPBACK, 9))
                .build();
        PeerSessions sessions = new PeerSessions(key, new SecureRandom());
        try (Socket raw =
                new Socket(LOOPBACK, server.identity().addresses().get(0).getPort())) {
            byte[] request = IdentityHandshake.encode(new IdentityHandshake.Request(
                            IdentityHandshake.Kind.CONNECT, listening.getLocalPort(), server.identity(), self)
                    .withTls());
            HandshakeProof.Client proof =
                    HandshakeProof.offer(sessions, server.identity().id().orElseThrow(), request);
            raw.getOutputStream().write(proof.request());
            IdentityHandshake.Reply reply = IdentityHandshake.readReply(raw.getInputStream());
            assertThat(reply.answer()).isEqualTo(IdentityHandshake.Answer.ACCEPT);
            assertThat(reply.tls()).isTrue();
            raw.getOutputStream().write(proof.complete(reply.keyAnswer())); // the Finished: now TLS is due
            // A TLS record header, then a byte every 200 ms: each read of the server's gets something in time.
            raw.getOutputStream().write(new byte[] {0x16, 0x03, 0x01, 0x01, 0x00});
            long start = System.nanoTime();
            boolean cut = false;
            while (System.nanoTime() - start < 4_000_000_000L) {
                try {
                    raw.getOutputStream().write(1);
                } catch (IOException e) {
                    cut = true;
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(cut).as("the server closed the trickling connection").isTrue();
            assertThat((System.nanoTime() - start) / 1_000_000)
                    .as("ms until cut off")
                    .isLessThan(3_000);
        }
        // Its backlog slot (of one) is back: an honest client gets through.
        Traverse client = node("all");
        byte[] up = seeded(7, 1024);
        byte[] down = seeded(8, 1024);
        CompletableFuture<Socket> accepted = acceptAndAnswer(listening, down);
        try (Socket s = client.socketFactory().connect(listening.getLocalSocketAddress(), 10_000)) {
            exchange(s, up, down);
            accepted.get(20, TimeUnit.SECONDS);
        }
    }

    @Test
    void aPartyOnThePathThatAnswersTlsWithAnotherKeyIsRefused() throws Exception {
        Traverse server = node("all");
        Traverse client = node("all");
        TraverseServerSocket listening = track(server.serverSocketFactory().createServerSocket(0, 50));
        IdentityKey otherKey = IdentityKey.generate();
        InetSocketAddress real = server.identity().addresses().get(0);
        try (ServerSocket onPath = new ServerSocket(0, 50, LOOPBACK)) {
            // Passes the identity handshake on (the real nodes prove their keys to each other), then
            // answers the client's TLS itself, with a key of its own.
            CompletableFuture<Void> middle = CompletableFuture.runAsync(
                    () -> {
                        try (Socket fromClient = onPath.accept();
                                Socket toServer = new Socket(real.getAddress(), real.getPort())) {
                            InputStream cin = fromClient.getInputStream();
                            byte[] request = readMessage(cin);
                            toServer.getOutputStream().write(request);
                            byte[] reply = readMessage(toServer.getInputStream());
                            fromClient.getOutputStream().write(reply);
                            byte[] finished = cin.readNBytes(HandshakeProof.FINISHED_LENGTH); // a first contact
                            toServer.getOutputStream().write(finished);
                            SSLSocket fake = LinkTls.of(otherKey).acceptingSocket(fromClient);
                            try {
                                fake.startHandshake();
                            } catch (IOException expected) {
                                // the client aborts once it sees the key
                            }
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    },
                    threads);
            VirtualSocketAddress viaMiddle = new VirtualSocketAddress(
                    NodeIdentity.builder()
                            .id(server.identity().id().orElseThrow())
                            .hostKey(HostKey.local().get())
                            .address(new InetSocketAddress(LOOPBACK, onPath.getLocalPort()))
                            .build(),
                    listening.getLocalPort());
            assertThatThrownBy(() -> client.socketFactory().connect(viaMiddle, 10_000))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(
                            "TLS with node " + server.identity().id().orElseThrow() + " failed")
                    .hasMessageContaining("key of node " + otherKey.id());
            middle.get(10, TimeUnit.SECONDS);
        }
        listening.setSoTimeout(300);
        assertThatThrownBy(listening::accept)
                .as("the server's end, whose TLS never came, reaches nobody")
                .isInstanceOf(SocketTimeoutException.class);
    }

    /**
     * Accepts one connection and answers as a server of the test: reads to the client's
     * half-close, checks nothing itself, sends {@code down} and half-closes. Returns the socket,
     * left open until the test closes it with the client's.
     */
    private CompletableFuture<Socket> acceptAndAnswer(TraverseServerSocket listening, byte[] down) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try {
                        Socket s = listening.accept();
                        track(s);
                        byte[] got = s.getInputStream().readAllBytes();
                        OutputStream out = s.getOutputStream();
                        out.write(sha256(got));
                        out.write(down);
                        out.flush();
                        s.shutdownOutput();
                        return s;
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
    }

    /** Sends {@code up} and half-closes; checks the digest the server read and {@code down} to its EOF. */
    private static void exchange(Socket s, byte[] up, byte[] down) throws Exception {
        s.getOutputStream().write(up);
        s.shutdownOutput();
        byte[] answer = s.getInputStream().readAllBytes();
        assertThat(answer.length).isEqualTo(32 + down.length);
        assertThat(java.util.Arrays.copyOfRange(answer, 0, 32))
                .as("SHA-256 of what the server read")
                .isEqualTo(sha256(up));
        assertThat(sha256(java.util.Arrays.copyOfRange(answer, 32, answer.length)))
                .isEqualTo(sha256(down));
    }

    private static VirtualSocketAddress through(Traverse server, RecordingTap tap, int port) {
        return new VirtualSocketAddress(
                NodeIdentity.builder()
                        .id(server.identity().id().orElseThrow())
                        .hostKey(HostKey.local().get())
                        .address(tap.address())
                        .build(),
                port);
    }

    /** One handshake message (header and body) from a stream, exactly. */
    private static byte[] readMessage(InputStream in) throws IOException {
        byte[] header = in.readNBytes(IdentityHandshake.HEADER_LENGTH);
        int length = IdentityHandshake.checkHeader(ByteBuffer.wrap(header));
        byte[] body = in.readNBytes(length);
        return ByteBuffer.allocate(header.length + body.length)
                .put(header)
                .put(body)
                .array();
    }

    private static IdentityHandshake.Request readRequest(byte[] fromClient) throws IOException {
        byte[] message = readMessage(new java.io.ByteArrayInputStream(fromClient));
        ByteBuffer all = ByteBuffer.wrap(message);
        return IdentityHandshake.decodeRequest(
                IdentityHandshake.code(all),
                ByteBuffer.wrap(
                        message, IdentityHandshake.HEADER_LENGTH, message.length - IdentityHandshake.HEADER_LENGTH));
    }

    private static byte[] seeded(long seed, int length) {
        byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        return data;
    }

    private static byte[] sha256(byte[] bytes) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(bytes);
    }
}
