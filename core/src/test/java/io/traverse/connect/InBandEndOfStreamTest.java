package io.traverse.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** In-band end-of-stream's chunks over a plain loopback connection (its handshake bit: {@code IdentityHandshakeTest}). */
@Timeout(30)
class InBandEndOfStreamTest {
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

    /**
     * A reader above the chunks that stops before the peer's end-of-stream (TLS stops at the
     * peer's close_notify): the far end answers and closes with that end-of-stream chunk unread.
     * Its close reads on to it, so the close is a FIN, not a reset that would throw away the
     * answer still waiting here.
     */
    @Test
    void closeReadsOnToThePeersEndSoItsLastBytesAreNotReset() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            byte[] request = new byte[10_000];
            new Random(5).nextBytes(request);
            CompletableFuture<String> far = CompletableFuture.supplyAsync(() -> {
                try (Socket s = new InBandEndOfStreamSocket(listener.accept())) {
                    s.getInputStream().readNBytes(request.length); // the request, but not the end behind it
                    String sent = send(s, 300_000, 3);
                    s.shutdownOutput();
                    Thread.sleep(50); // the request's end-of-stream chunk has arrived by now, unread
                    return sent;
                } catch (IOException | InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
            try (Socket s = new InBandEndOfStreamSocket(connect(listener))) {
                s.getOutputStream().write(request);
                s.shutdownOutput();
                String sent = far.get(20, TimeUnit.SECONDS);
                Thread.sleep(200); // a reset from the far end's close would have arrived
                assertThat(digestToEof(s.getInputStream())).isEqualTo(sent);
            }
        }
    }

    @Test
    void aTunnelThatEndsWithoutEndOfStreamIsAReset() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            try (Socket s = new InBandEndOfStreamSocket(connect(listener));
                    Socket raw = listener.accept()) {
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
        return new Socket(
                InetAddress.getLoopbackAddress(), ((InetSocketAddress) listener.getLocalSocketAddress()).getPort());
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
            return java.util.HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
