package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.protocol.IdentityHandshake;
import io.traverse.protocol.IdentityHandshake.Answer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Bad input at the listening port — wrong magic or version, oversized lengths, random bytes,
 * silence — gets a clear answer or a timely close, and never delays other clients.
 */
@Timeout(60)
class ListenerRobustnessTest {
    private final TestNodes nodes = new TestNodes();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private Traverse target;
    private Traverse client;
    private TraverseServerSocket server;
    private InetSocketAddress listening;

    @BeforeEach
    void start() throws Exception {
        target = nodes.node(
                "127.0.0.31", b -> b.handshakeTimeout(Duration.ofMillis(500)).maxPendingHandshakes(64));
        client = nodes.node("127.0.0.32");
        server = target.serverSocketFactory().createServerSocket(80);
        listening = target.identity().addresses().get(0);
        pool.submit(() -> {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    s.getOutputStream().write('!');
                } catch (IOException e) {
                    return null;
                }
            }
            return null;
        });
    }

    @AfterEach
    void stop() throws Exception {
        pool.shutdownNow();
        nodes.close();
    }

    /** A well-behaved client still gets through quickly. */
    private void assertOthersAreServedPromptly() throws Exception {
        long start = System.nanoTime();
        VirtualSocketAddress a = server.virtualAddress();
        try (Socket s = client.socketFactory().createSocket(a.getHostString(), a.getPort())) {
            s.setSoTimeout(5_000);
            assertThat(s.getInputStream().read()).isEqualTo('!');
        }
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }

    private Socket raw() throws IOException {
        Socket s = new Socket();
        s.connect(listening, 5_000);
        s.setSoTimeout(5_000);
        return s;
    }

    private IdentityHandshake.Reply send(byte[] bytes) throws IOException {
        try (Socket s = raw()) {
            s.getOutputStream().write(bytes);
            return IdentityHandshake.readReply(s.getInputStream());
        }
    }

    /** Anonymous: a request that names its source must prove its key (integration KeyProofTest). */
    private byte[] validRequest() {
        return IdentityHandshake.encode(
                new IdentityHandshake.Request(IdentityHandshake.Kind.CONNECT, 80, target.identity(), null));
    }

    @Test
    void aProbeIsAnsweredAsAConnectWouldBeAndReachesNoApplication() throws Exception {
        byte[] probe = IdentityHandshake.encode(
                new IdentityHandshake.Request(IdentityHandshake.Kind.PROBE, 80, target.identity(), client.identity()));
        try (Socket s = raw()) {
            s.getOutputStream().write(probe);
            assertThat(IdentityHandshake.readReply(s.getInputStream()).answer()).isEqualTo(Answer.ACCEPT);
            assertThat(s.getInputStream().read())
                    .as("closed after the answer, not handed to the server ('!')")
                    .isEqualTo(-1);
        }
        byte[] nowhere = IdentityHandshake.encode(
                new IdentityHandshake.Request(IdentityHandshake.Kind.PROBE, 81, target.identity(), client.identity()));
        assertThat(send(nowhere).answer()).isEqualTo(Answer.PORT_NOT_FOUND);
        assertOthersAreServedPromptly();
    }

    @Test
    void aRequestArrivingInPiecesIsAcceptedAsAWholeOne() throws Exception {
        byte[] request = validRequest();
        try (Socket s = raw()) {
            OutputStream out = s.getOutputStream();
            int[] cuts = {3, IdentityHandshake.HEADER_LENGTH, IdentityHandshake.HEADER_LENGTH + 5, request.length};
            int from = 0;
            for (int cut : cuts) {
                out.write(request, from, cut - from);
                out.flush();
                from = cut;
                Thread.sleep(30); // each piece arrives on its own
            }
            assertThat(IdentityHandshake.readReply(s.getInputStream()).answer()).isEqualTo(Answer.ACCEPT);
            assertThat(s.getInputStream().read())
                    .as("the application's byte after the reply")
                    .isEqualTo('!');
        }
    }

    @Test
    void bytesSentAfterTheRequestBeforeTheReplyAreAProtocolError() throws Exception {
        byte[] request = validRequest();
        byte[] withMore = Arrays.copyOf(request, request.length + 5); // one write: one segment, read together
        for (int round = 0; round < 20; round++) {
            IdentityHandshake.Reply reply = send(withMore);
            assertThat(reply.answer()).as("round %d", round).isEqualTo(Answer.PROTOCOL_ERROR);
            assertThat(reply.reason()).contains("after the request");
        }
        assertOthersAreServedPromptly();
    }

    @Test
    void wrongMagicIsAProtocolError() throws Exception {
        byte[] bytes = validRequest();
        bytes[0] = 'X';
        IdentityHandshake.Reply reply = send(bytes);
        assertThat(reply.answer()).isEqualTo(Answer.PROTOCOL_ERROR);
        assertThat(reply.reason()).contains("magic");
        assertOthersAreServedPromptly();
    }

    @Test
    void wrongVersionIsAProtocolErrorThatNamesBothVersions() throws Exception {
        byte[] bytes = validRequest();
        bytes[4] = 9;
        IdentityHandshake.Reply reply = send(bytes);
        assertThat(reply.answer()).isEqualTo(Answer.PROTOCOL_ERROR);
        assertThat(reply.reason()).contains("unsupported protocol version 9").contains("speaks 1");
        assertOthersAreServedPromptly();
    }

    @Test
    void oversizedLengthIsRefusedBeforeAnythingIsAllocated() throws Exception {
        ByteBuffer header = ByteBuffer.allocate(8)
                .putInt(IdentityHandshake.MAGIC)
                .put((byte) 1)
                .put((byte) 1)
                .putShort((short) 0xffff);
        IdentityHandshake.Reply reply = send(header.array());
        assertThat(reply.answer()).isEqualTo(Answer.PROTOCOL_ERROR);
        assertThat(reply.reason()).contains("exceeds the maximum");
        assertOthersAreServedPromptly();
    }

    @Test
    void malformedBodyIsAProtocolError() throws Exception {
        byte[] body = {0, 80, 0, 5, 'h', 'e', 'l', 'l', 'o', 0, 0};
        ByteBuffer frame = ByteBuffer.allocate(8 + body.length)
                .putInt(IdentityHandshake.MAGIC)
                .put((byte) 1)
                .put((byte) 1)
                .putShort((short) body.length)
                .put(body);
        IdentityHandshake.Reply reply = send(frame.array());
        assertThat(reply.answer()).isEqualTo(Answer.PROTOCOL_ERROR);
        assertThat(reply.reason()).contains("expected target");
    }

    @Test
    void randomBytesAreRejectedAndNobodyElseNotices() throws Exception {
        Random random = new Random(42);
        for (int i = 0; i < 50; i++) {
            byte[] junk = new byte[1 + random.nextInt(2000)];
            random.nextBytes(junk);
            try (Socket s = raw()) {
                s.getOutputStream().write(junk);
                InputStream in = s.getInputStream();
                // Either a PROTOCOL_ERROR reply and EOF, or a reset: never a hang, never ACCEPT.
                try {
                    byte[] reply = in.readAllBytes();
                    if (reply.length >= 6) {
                        assertThat(reply[5]).as("answer code for junk #%d", i).isEqualTo((byte)
                                Answer.PROTOCOL_ERROR.code);
                    }
                } catch (java.net.SocketException reset) {
                    // the listener closed with our junk unread: a reset is a valid way to say no
                }
            }
        }
        assertOthersAreServedPromptly();
    }

    @Test
    void silentClientsAreClosedAfterTheHandshakeTimeoutAndDelayNobody() throws Exception {
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < 40; i++) {
                silent.add(raw());
            }
            assertOthersAreServedPromptly();
            for (Socket s : silent) {
                long start = System.nanoTime();
                assertThat(s.getInputStream().read()).isEqualTo(-1); // closed by the listener
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
            }
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
        assertOthersAreServedPromptly();
    }

    @Test
    void atTheHandshakeLimitTheLongestWaitingConnectionMakesRoom() throws Exception {
        Traverse small =
                nodes.node("127.0.0.33", b -> b.maxPendingHandshakes(3).handshakeTimeout(Duration.ofSeconds(20)));
        TraverseServerSocket ss = small.serverSocketFactory().createServerSocket(5);
        InetSocketAddress address = small.identity().addresses().get(0);
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                Socket s = new Socket();
                s.connect(address);
                s.setSoTimeout(5_000);
                silent.add(s);
                Thread.sleep(50); // keep their order of arrival
            }
            // A real client still gets through: its request is answered as soon as it arrives.
            VirtualSocketAddress a = ss.virtualAddress();
            try (Socket ok = client.socketFactory().createSocket(a.getHostString(), a.getPort())) {
                assertThat(ok.isConnected()).isTrue();
            }
            // One more silent connection: the one that waited longest is closed to make room.
            Socket fourth = new Socket();
            fourth.connect(address);
            silent.add(fourth);
            IdentityHandshake.Reply reply =
                    IdentityHandshake.readReply(silent.get(0).getInputStream());
            assertThat(reply.answer()).isEqualTo(Answer.OVERLOAD);
            assertThat(reply.reason()).contains("too many handshakes").contains("waited longest");
            silent.get(2).setSoTimeout(300);
            assertThatThrownBy(() -> silent.get(2).getInputStream().read())
                    .as("newer silent ones are still waiting")
                    .isInstanceOf(java.net.SocketTimeoutException.class);
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
    }

    @Test
    void clientsHammeringWithGarbageInParallelDoNotStopService() throws Exception {
        List<Future<?>> attackers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int seed = t;
            attackers.add(pool.submit(() -> {
                Random random = new Random(seed);
                for (int i = 0; i < 100; i++) {
                    try (Socket s = raw()) {
                        byte[] junk = new byte[random.nextInt(64) + 1];
                        random.nextBytes(junk);
                        s.getOutputStream().write(junk);
                    } catch (IOException ignored) {
                        // resets are fine
                    }
                }
                return null;
            }));
        }
        for (int i = 0; i < 10; i++) {
            assertOthersAreServedPromptly();
        }
        for (Future<?> f : attackers) {
            f.get(30, TimeUnit.SECONDS);
        }
        assertOthersAreServedPromptly();
    }
}
