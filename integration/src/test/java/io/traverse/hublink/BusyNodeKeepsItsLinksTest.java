package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node whose application is busy with many relayed connections at once keeps its hub link and
 * data link. A thousand connections each stream paced, seeded bytes to one server node,
 * where a thread per connection blocks reading it (as a thread-per-connection server does), hashes
 * it to EOF and answers with the length and SHA-256. With the data link read by whichever
 * application thread waited for a frame (leader/follower), the server node's link reading
 * depended on a thousand followers taking turns: it fell behind, the hub's keepalive found the
 * link taking nothing, and every connection was reset. The link is now read by its own thread,
 * always, so an application's threads cannot starve it.
 */
class BusyNodeKeepsItsLinksTest {
    private static final int PORT = 4200;
    private static final int CONNECTIONS = 1000;
    private static final int CHUNK = 4 * 1024;
    private static final long PACE_MILLIS = 50;
    private static final int CHUNKS = 200;
    private final LoopbackHubNetwork net = new LoopbackHubNetwork();
    private final ExecutorService perConnection = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "busy-node-test");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService pacer = Executors.newScheduledThreadPool(4, r -> {
        Thread t = new Thread(r, "busy-node-pacer");
        t.setDaemon(true);
        return t;
    });

    @AfterEach
    void closeAll() throws Exception {
        pacer.shutdownNow();
        perConnection.shutdownNow();
        net.close();
    }

    @Test
    void aThousandPacedStreamsToOneThreadPerConnectionServerAllVerify() throws Exception {
        Hub hub = net.hub("busy-node");
        Traverse server = node(hub);
        Traverse client = node(hub);
        TraverseServerSocket listening =
                net.closeLater(server.serverSocketFactory().createServerSocket(PORT, CONNECTIONS));
        VirtualSocketAddress address = (VirtualSocketAddress) listening.getLocalSocketAddress();
        CompletableFuture<Void> serving = CompletableFuture.runAsync(
                () -> {
                    try {
                        for (int i = 0; i < CONNECTIONS; i++) {
                            Socket s = net.closeLater(listening.accept());
                            perConnection.execute(() -> answerWithDigest(s));
                        }
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                perConnection);
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            sockets.add(
                    net.closeLater(client.socketFactory().createSocket(address.getHostString(), address.getPort())));
        }
        serving.get(60, TimeUnit.SECONDS);

        // Every connection writes CHUNKS chunks, one every PACE_MILLIS, started evenly over one pace
        // (80 MB/s in all); a thread per connection waits for the server's answer meanwhile.
        AtomicInteger failures = new AtomicInteger();
        List<CompletableFuture<String>> verdicts = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            Socket s = sockets.get(i);
            long seed = i;
            CompletableFuture<Void> written = new CompletableFuture<>();
            paceWrites(s, seed, i * PACE_MILLIS * 1000 / CONNECTIONS, written, failures);
            verdicts.add(CompletableFuture.supplyAsync(() -> verify(s, seed, written), perConnection));
        }
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < CONNECTIONS; i++) {
            String verdict = verdicts.get(i).get(120, TimeUnit.SECONDS);
            if (!verdict.isEmpty()) {
                wrong.add(i + ": " + verdict);
            }
        }
        assertThat(wrong)
                .as("connections that did not verify (of %d)", CONNECTIONS)
                .isEmpty();
        assertThat(failures).hasValue(0);
    }

    private Traverse node(Hub hub) throws Exception {
        Traverse node = net.node(LoopbackHubNetwork.config(hub)
                .modules("routed")
                .connectTimeout(Duration.ofSeconds(20))
                .build());
        assertThat(node.awaitHubLink(Duration.ofSeconds(10))).isTrue();
        return node;
    }

    /** Writes the seeded chunks at the pace, then half-closes; completes {@code written} (exceptionally on failure). */
    private void paceWrites(
            Socket s, long seed, long delayMicros, CompletableFuture<Void> written, AtomicInteger failures) {
        SplittableRandom random = new SplittableRandom(seed);
        AtomicInteger left = new AtomicInteger(CHUNKS);
        Runnable writeOne = () -> {
            if (written.isDone()) {
                return;
            }
            try {
                byte[] chunk = new byte[CHUNK];
                random.nextBytes(chunk);
                OutputStream out = s.getOutputStream();
                out.write(chunk);
                if (left.decrementAndGet() == 0) {
                    s.shutdownOutput();
                    written.complete(null);
                }
            } catch (IOException | RuntimeException e) {
                failures.incrementAndGet();
                written.completeExceptionally(e);
            }
        };
        // Runs on as a no-op once done; the pacer stops at the end of the test.
        pacer.scheduleAtFixedRate(writeOne, delayMicros, PACE_MILLIS * 1000, TimeUnit.MICROSECONDS);
    }

    /** The server's side of one connection: hash to EOF, answer length and digest, close. */
    private static void answerWithDigest(Socket s) {
        try (s) {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            InputStream in = s.getInputStream();
            byte[] buffer = new byte[16 * 1024];
            long length = 0;
            int n;
            while ((n = in.read(buffer)) >= 0) {
                sha.update(buffer, 0, n);
                length += n;
            }
            java.io.DataOutputStream out = new java.io.DataOutputStream(s.getOutputStream());
            out.writeLong(length);
            out.write(sha.digest());
            out.flush();
        } catch (Exception e) {
            // The client sees the connection end without an answer and reports it.
        }
    }

    /** The client's verdict on one connection: empty if the server hashed exactly what was sent. */
    private static String verify(Socket s, long seed, CompletableFuture<Void> written) {
        try {
            DataInputStream in = new DataInputStream(s.getInputStream());
            long length = in.readLong();
            byte[] digest = new byte[32];
            in.readFully(digest);
            if (in.read() != -1) {
                return "bytes after the answer";
            }
            written.get(1, TimeUnit.SECONDS);
            if (length != (long) CHUNK * CHUNKS) {
                return "server read " + length + " bytes";
            }
            return java.util.Arrays.equals(digest, expectedDigest(seed)) ? "" : "digest differs";
        } catch (Exception e) {
            return e.toString();
        }
    }

    private static byte[] expectedDigest(long seed) throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] chunk = new byte[CHUNK];
        for (int i = 0; i < CHUNKS; i++) {
            random.nextBytes(chunk);
            sha.update(chunk);
        }
        return sha.digest();
    }
}
