package io.traverse.direct;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.identity.HostKey;
import io.traverse.identity.NodeIdentity;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.MessageDigest;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two attempts of one connect that both reach the listener (the node's address, and the same
 * listener behind a relay at a second address that passes the handshake request on 8 ms late;
 * 1 ms stagger): only the winner may reach the application's {@code accept()}. The first attempt
 * (the relay's, once it has won: the working address goes first) asks unheld, before its rival
 * starts; the rival asks to be held, gets through first, waits for the first's answer and gives
 * way; its connection is closed unconfirmed and dropped unseen. Before, both were handed to
 * {@code accept()} and the loser ended at once (it fails so with holding switched off).
 */
@Timeout(120)
class RaceLoserNeverReachesAcceptTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int CONNECTS = 30;
    private static final int BYTES = 64 * 1024;
    private static final long HANDSHAKE_DELAY_MILLIS = 8;

    @Test
    void theTargetAcceptsExactlyOneConnectionPerConnectWhenTwoAttemptsGetThrough() throws Exception {
        assumeTrue(HostKey.local().isPresent(), "needs /proc to know this host's key");
        ExecutorService relays = Executors.newCachedThreadPool();
        try (TestNodes nodes = new TestNodes();
                ServerSocket relay = new ServerSocket(0, 50, LOOPBACK)) {
            Traverse server = nodes.node("127.0.0.1");
            // Stagger 1 ms: the second address is dialled at once, so both attempts get through.
            Traverse client = nodes.node("127.0.0.1", b -> b.modules("direct").set("traverse.connect.stagger", "1ms"));
            TraverseServerSocket listener =
                    nodes.track(server.serverSocketFactory().createServerSocket(0, 50));
            InetSocketAddress real = server.identity().addresses().get(0);
            relays.execute(() -> relayAll(relay, real, relays));
            NodeIdentity target = NodeIdentity.builder()
                    .id(server.identity().id().orElseThrow())
                    .hostKey(HostKey.local().get())
                    .address(new InetSocketAddress(LOOPBACK, relay.getLocalPort()))
                    .address(real)
                    .build();
            VirtualSocketAddress address = new VirtualSocketAddress(target, listener.getLocalPort());

            Random random = new Random(13);
            for (int i = 0; i < CONNECTS; i++) {
                byte[] data = new byte[BYTES];
                random.nextBytes(data);
                CompletableFuture<byte[]> served = CompletableFuture.supplyAsync(() -> {
                    try (Socket s = listener.accept()) {
                        return s.getInputStream().readAllBytes();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                });
                try (Socket s = client.socketFactory().connect(address, 10_000)) {
                    s.getOutputStream().write(data);
                    s.shutdownOutput();
                    byte[] got = served.get(10, TimeUnit.SECONDS);
                    assertThat(got.length)
                            .as("connect %d: length at the server", i)
                            .isEqualTo(BYTES);
                    assertThat(sha256(got))
                            .as("connect %d: SHA-256 at the server", i)
                            .isEqualTo(sha256(data));
                    assertThat(s.getInputStream().read())
                            .as("connect %d: the server's end-of-stream", i)
                            .isEqualTo(-1);
                }
            }
            // Every loser is dropped: nothing more reaches accept(), also after the handshake timeout of a held one.
            listener.setSoTimeout(1_500);
            assertThatThrownBy(listener::accept)
                    .as("no connection beyond the %d made", CONNECTS)
                    .isInstanceOf(SocketTimeoutException.class);
            assertThat(relayed)
                    .as("the relayed address got attempts too (both raced)")
                    .isPositive();
        } finally {
            relays.shutdownNow();
        }
    }

    private volatile int relayed;

    /** Pipes every connection to {@code to}, both ways, end-of-stream included. */
    private void relayAll(ServerSocket relay, InetSocketAddress to, ExecutorService threads) {
        while (!relay.isClosed()) {
            try {
                Socket in = relay.accept();
                Socket out = new Socket(to.getAddress(), to.getPort());
                relayed++;
                threads.execute(() -> pipe(in, out, HANDSHAKE_DELAY_MILLIS));
                threads.execute(() -> pipe(out, in, 0));
            } catch (IOException e) {
                return;
            }
        }
    }

    /** Passes bytes on, the first ones (the handshake request) {@code firstDelayMillis} late. */
    private static void pipe(Socket from, Socket to, long firstDelayMillis) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            int n;
            boolean first = true;
            while ((n = in.read(buffer)) > 0) {
                if (first && firstDelayMillis > 0) {
                    Thread.sleep(firstDelayMillis);
                }
                first = false;
                out.write(buffer, 0, n);
            }
            to.shutdownOutput();
        } catch (IOException | InterruptedException e) {
            closeQuietly(to);
            closeQuietly(from);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // gone already
        }
    }

    private static byte[] sha256(byte[] data) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }
}
