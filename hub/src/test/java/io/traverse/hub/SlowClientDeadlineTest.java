package io.traverse.hub;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.wire.LinkRole;
import io.traverse.wire.LookupKind;
import io.traverse.wire.ResultStatus;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Slowloris: a client that sends a byte now and then, so that a read timeout never fires, is cut
 * at its deadline however it trickles — in the link preamble, in a HELLO, in an HTTP request's head
 * on the link port, and on the HTTP port, where a client that sends nothing at all is cut too. A
 * node linked meanwhile is served throughout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SlowClientDeadlineTest {
    private static final Duration DEADLINE = Duration.ofMillis(3000); // room for a cold TLS handshake on a busy machine
    private static final long BYTE_EVERY_MILLIS = 100;
    private final TestHubs hubs = new TestHubs();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void closeAll() {
        threads.shutdownNow();
        hubs.close();
    }

    @Test
    void everySlowClientIsCutAtItsDeadlineAndANodeIsServedMeanwhile() throws Exception {
        Hub hub = hubs.start(
                "slowloris", b -> b.httpPort(0).handshakeTimeout(DEADLINE).httpRequestTimeout(DEADLINE));
        InetSocketAddress link = TestNodeClient.loopback(hub);
        InetSocketAddress http = hub.httpAddress().orElseThrow();
        byte[] preamble = TestNodeClient.preamble(LinkRole.NODE);
        // After the preamble the hub reads TLS: a ClientHello record (type 0x16, 512 bytes) that never ends.
        byte[] hello = ByteBuffer.allocate(5 + 200)
                .put((byte) 0x16)
                .put((byte) 3)
                .put((byte) 1)
                .putShort((short) 512)
                .array();
        byte[] longPoll =
                "POST /traverse/longpoll/v1/open HTTP/1.1\r\nHost: hub\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                        .getBytes(StandardCharsets.US_ASCII);
        byte[] status = "GET /status HTTP/1.1\r\nHost: hub\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                .getBytes(StandardCharsets.US_ASCII);

        // Linked first: its own TLS handshake, the JVM's first, may take longer than this test's short deadline.
        try (TestNodeClient node = TestNodeClient.connect(hub, TestHubs.TOKEN, "meanwhile")) {
            List<CompletableFuture<Duration>> cut = new ArrayList<>();
            cut.add(slow(link, new byte[0], preamble));
            cut.add(slow(link, preamble, hello));
            cut.add(slow(link, new byte[0], longPoll));
            cut.add(slow(http, new byte[0], status));
            cut.add(slow(http, new byte[0], new byte[0]));
            for (int i = 0; i < 10; i++) {
                assertThat(node.bind("svc-" + i, 80).status()).isEqualTo(ResultStatus.OK);
                assertThat(node.lookup(LookupKind.NAME, "svc-" + i).status()).isEqualTo(ResultStatus.OK);
                Thread.sleep(100);
            }
            for (int i = 0; i < cut.size(); i++) {
                assertThat(cut.get(i).get(DEADLINE.toMillis() * 4, TimeUnit.MILLISECONDS))
                        .as("slow client %d", i)
                        .isBetween(DEADLINE.minusMillis(100), DEADLINE.plusMillis(1500));
            }
            assertThat(node.isClosedByPeer()).isFalse();
        }
    }

    /** Sends {@code first} at once, then {@code trickle} a byte at a time; completes with how long the hub kept the connection. */
    private CompletableFuture<Duration> slow(InetSocketAddress to, byte[] first, byte[] trickle) {
        return CompletableFuture.supplyAsync(
                () -> {
                    try (Socket s = new Socket(to.getAddress(), to.getPort())) {
                        long start = System.nanoTime();
                        s.setSoTimeout((int) BYTE_EVERY_MILLIS);
                        OutputStream out = s.getOutputStream();
                        InputStream in = s.getInputStream();
                        out.write(first);
                        for (int i = 0; ; i++) {
                            if (i < trickle.length) {
                                out.write(trickle[i]);
                            }
                            try {
                                if (in.read(new byte[4096]) < 0) {
                                    return Duration.ofNanos(System.nanoTime() - start);
                                }
                            } catch (SocketTimeoutException stillOpen) {
                                // the next byte
                            }
                        }
                    } catch (IOException e) {
                        // a reset on a write: the hub closed it
                        return Duration.ZERO;
                    }
                },
                threads);
    }
}
