package io.traverse.hublink.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.traverse.identity.NodeId;
import io.traverse.protocol.ProtocolException;
import io.traverse.wire.LinkAuthentication;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Opening a data link to something that is not a hub that takes it: the node learns at once and
 * keeps relayed frames on its link (the hub module tests data links with the real hub).
 */
class HubDataLinkTest {
    private static final io.traverse.security.LinkTls TLS =
            io.traverse.security.LinkTls.of(io.traverse.security.IdentityKey.generate());
    private static final LinkAuthentication TOKEN = new LinkAuthentication("token");
    private static final byte[] NONCE = LinkAuthentication.newNonce();
    /** Direct buffers handed out, to check that a failed open keeps none. */
    private final List<ByteBuf> direct = new CopyOnWriteArrayList<>();

    private final ByteBufAllocator alloc = new AbstractByteBufAllocator(true) {
        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            return Unpooled.buffer(initialCapacity, maxCapacity);
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            ByteBuf b = Unpooled.directBuffer(initialCapacity, maxCapacity);
            direct.add(b);
            return b;
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    };

    @AfterEach
    void noBufferKept() {
        assertThat(direct)
                .allSatisfy(b -> assertThat(b.refCnt())
                        .as("buffer of %d bytes", b.capacity())
                        .isZero());
    }

    /** A peer that reads the preamble, then does {@code then} with the connection. */
    private interface Peer {
        void serve(Socket s) throws IOException;
    }

    private IOException openAgainst(Peer peer, long timeoutMillis) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> served = CompletableFuture.runAsync(() -> {
                try (Socket s = server.accept()) {
                    s.getInputStream().readNBytes(8);
                    peer.serve(s);
                } catch (IOException e) {
                    // the node gave up first
                }
            });
            InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
            try {
                HubDataLink.open(
                                at,
                                null, // no proxy
                                NodeId.random(),
                                NodeId.random(),
                                "a node",
                                TOKEN,
                                TLS,
                                NONCE,
                                NONCE,
                                timeoutMillis,
                                alloc)
                        .close();
                throw new AssertionError("the data link opened");
            } catch (IOException e) {
                served.get(5, TimeUnit.SECONDS);
                return e;
            }
        }
    }

    @Test
    void aHubThatClosesTheConnectionIsNoticedAtOnce() throws Exception {
        long started = System.nanoTime();
        IOException e = openAgainst(s -> {}, 10_000);
        assertThat(e)
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("closed the connection in the data link handshake");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
    }

    @Test
    void aHubThatSaysOneByteAndClosesLeavesNoBufferBehind() throws Exception {
        IOException e = openAgainst(s -> s.getOutputStream().write('x'), 5_000);
        assertThat(e).isInstanceOf(EOFException.class);
        assertThat(direct).as("the handshake read into a buffer").isNotEmpty();
    }

    @Test
    void aSilentPeerTimesOut() throws Exception {
        IOException e = openAgainst(
                s -> {
                    InputStream in = s.getInputStream();
                    while (in.read() >= 0) {
                        // says nothing, until the node gives up
                    }
                },
                300);
        assertThat(e).isInstanceOf(SocketTimeoutException.class).hasMessageContaining("within 300 ms");
    }

    @Test
    void aPeerThatIsNotAHubIsRefused() throws Exception {
        IOException e =
                openAgainst(s -> s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes()), 5_000);
        assertThat(e).isInstanceOf(ProtocolException.class).hasMessageContaining("not a Traverse hub link");
    }

    @Test
    void nobodyListeningFailsTheOpen() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        assertThatThrownBy(() -> HubDataLink.open(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                        null, // no proxy
                        NodeId.random(),
                        NodeId.random(),
                        "a node",
                        TOKEN,
                        TLS,
                        NONCE,
                        NONCE,
                        2_000,
                        PooledByteBufAllocator.DEFAULT))
                .isInstanceOf(IOException.class);
    }
}
