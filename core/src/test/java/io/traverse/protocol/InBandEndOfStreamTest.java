package io.traverse.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.traverse.identity.NodeIdentity;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** In-band end-of-stream: its handshake bit and its chunks, over a plain loopback connection. */
@Timeout(30)
class InBandEndOfStreamTest {
    private static final NodeIdentity TARGET = IdentityHandshakeTest.TARGET;
    private static final NodeIdentity SOURCE = IdentityHandshakeTest.SOURCE;

    @Test
    void theBitRoundTripsInRequestAndAcceptAndIsAbsentOtherwise() throws Exception {
        byte[] asked = IdentityHandshake.encode(new IdentityHandshake.Request(IdentityHandshake.Kind.CONNECT, 80, TARGET, SOURCE,
                null, true));
        byte[] plain = IdentityHandshake.encode(new IdentityHandshake.Request(IdentityHandshake.Kind.CONNECT, 80, TARGET, SOURCE));
        assertThat(asked[5] & 0xff).isEqualTo(0x81);
        assertThat(plain[5] & 0xff).isEqualTo(0x01); // a node that does not ask sends what it always sent
        IdentityHandshake.Request decoded = decodeRequest(asked);
        assertThat(decoded.inBandEndOfStream()).isTrue();
        assertThat(decodeRequest(plain).inBandEndOfStream()).isFalse();

        byte[] agreed = IdentityHandshake.encode(new IdentityHandshake.Reply(IdentityHandshake.Answer.ACCEPT, TARGET, "", true));
        assertThat(agreed[5] & 0xff).isEqualTo(0x80);
        assertThat(IdentityHandshake.readReply(new java.io.ByteArrayInputStream(agreed)).inBandEndOfStream()).isTrue();
    }

    @Test
    void theBitOnAReverseRequestIsKeptButOnARefusalIsAProtocolError() throws Exception {
        // A dial-back through a tunnel (the reverse module through an sshd) asks for it as a CONNECT does.
        byte[] token = new byte[IdentityHandshake.TOKEN_LENGTH];
        token[3] = 7;
        byte[] reverse = IdentityHandshake.encode(new IdentityHandshake.Request(IdentityHandshake.Kind.REVERSE, 80, TARGET, SOURCE,
                token, true));
        assertThat(reverse[5]).isEqualTo((byte) (IdentityHandshake.Kind.REVERSE.code | 0x80));
        IdentityHandshake.Request decoded = decodeRequest(reverse);
        assertThat(decoded.kind()).isEqualTo(IdentityHandshake.Kind.REVERSE);
        assertThat(decoded.inBandEndOfStream()).isTrue();
        assertThat(decoded.token()).isEqualTo(token);
        byte[] refused = IdentityHandshake.encode(new IdentityHandshake.Reply(IdentityHandshake.Answer.REFUSED, TARGET, "no"));
        refused[5] |= (byte) 0x80;
        assertThatThrownBy(() -> IdentityHandshake.readReply(new java.io.ByteArrayInputStream(refused)))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("unknown handshake answer 131");
    }

    @Test
    void halfCloseTravelsInBandBothWaysWhileTheConnectionStaysOpen() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String[]> far = CompletableFuture.supplyAsync(() -> {
                try (Socket s = new InBandEndOfStreamSocket(listener.accept())) {
                    String received = digestToEof(s.getInputStream());
                    assertThat(s.isInputShutdown()).isFalse();
                    String sent = send(s, 700_000, 2);
                    s.shutdownOutput();
                    assertThat(s.isOutputShutdown()).isTrue();
                    return new String[] {received, sent};
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            try (Socket s = new InBandEndOfStreamSocket(connect(listener))) {
                String sent = send(s, 1_000_003, 1);
                s.shutdownOutput();
                assertThatThrownBy(() -> s.getOutputStream().write(1)).isInstanceOf(SocketException.class);
                String back = digestToEof(s.getInputStream());
                assertThat(s.getInputStream().read()).isEqualTo(-1); // stays at the end
                String[] there = far.get(20, TimeUnit.SECONDS);
                assertThat(there[0]).isEqualTo(sent);
                assertThat(back).isEqualTo(there[1]);
            }
        }
    }

    @Test
    void aTunnelThatEndsWithoutEndOfStreamIsAReset() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            try (Socket s = new InBandEndOfStreamSocket(connect(listener)); Socket raw = listener.accept()) {
                raw.getOutputStream().write(new byte[] {0, 3, 'a', 'b', 'c'});
                raw.close(); // the far end vanished without saying end-of-stream
                InputStream in = s.getInputStream();
                assertThat(in.readNBytes(3)).isEqualTo("abc".getBytes());
                assertThatThrownBy(in::read).isInstanceOf(SocketException.class).hasMessageContaining("reset");
            }
        }
    }

    @Test
    void closeSendsEndOfStreamSoThePeerSeesACleanEnd() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Socket near = new InBandEndOfStreamSocket(connect(listener));
            try (Socket far = new InBandEndOfStreamSocket(listener.accept())) {
                near.getOutputStream().write("bye".getBytes());
                near.close();
                assertThat(far.getInputStream().readAllBytes()).isEqualTo("bye".getBytes());
                assertThatThrownBy(() -> near.getInputStream()).isInstanceOf(SocketException.class);
            }
        }
    }

    @Test
    void closeUnblocksAWriteToAPeerThatReadsNothing() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Socket near = new InBandEndOfStreamSocket(connect(listener));
            try (Socket far = listener.accept()) { // never read: the tunnel fills up
                CompletableFuture<Throwable> writer = CompletableFuture.supplyAsync(() -> {
                    try {
                        byte[] block = new byte[1 << 20];
                        for (int i = 0; i < 1024; i++) {
                            near.getOutputStream().write(block);
                        }
                        return null;
                    } catch (IOException e) {
                        return e;
                    }
                });
                Thread.sleep(300);
                assertThat(writer).isNotDone();
                long start = System.nanoTime();
                near.close();
                assertThat(writer.get(5, TimeUnit.SECONDS)).isInstanceOf(SocketException.class);
                assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(3));
                assertThat(near.isClosed()).isTrue();
            }
        }
    }

    @Test
    void closeAfterAWriteThatFilledTheTunnelDoesNotHang() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Socket raw = connect(listener);
            raw.setSendBufferSize(4096);
            Socket near = new InBandEndOfStreamSocket(raw);
            try (Socket far = listener.accept()) {
                far.setReceiveBufferSize(4096);
                CompletableFuture<Void> filling = CompletableFuture.runAsync(() -> {
                    try {
                        while (true) {
                            near.getOutputStream().write(new byte[1024]);
                        }
                    } catch (IOException expected) {
                        // closed under it
                    }
                });
                Thread.sleep(300);
                long start = System.nanoTime();
                near.close(); // the writer may be blocked or between writes: either way close returns
                filling.get(5, TimeUnit.SECONDS);
                assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(3));
            }
        }
    }

    private static Socket connect(ServerSocket listener) throws IOException {
        return new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) listener.getLocalSocketAddress()).getPort());
    }

    private static IdentityHandshake.Request decodeRequest(byte[] bytes) throws ProtocolException {
        ByteBuffer header = ByteBuffer.wrap(bytes, 0, IdentityHandshake.HEADER_LENGTH);
        int length = IdentityHandshake.checkHeader(header);
        return IdentityHandshake.decodeRequest(IdentityHandshake.code(header),
                ByteBuffer.wrap(bytes, IdentityHandshake.HEADER_LENGTH, length).slice());
    }

    private static String send(Socket s, int length, long seed) throws IOException {
        byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        // uneven pieces: chunk boundaries must not matter
        int off = 0;
        int piece = 1;
        while (off < length) {
            int n = Math.min(piece, length - off);
            s.getOutputStream().write(data, off, n);
            off += n;
            piece = piece * 3 + 7;
        }
        return length + ":" + sha256(data);
    }

    private static String digestToEof(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        in.transferTo(all);
        return all.size() + ":" + sha256(all.toByteArray());
    }

    private static String sha256(byte[] data) {
        try {
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
