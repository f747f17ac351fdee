package io.traverse.hublink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.hub.Hub;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Servers that accept on virtual threads, as Spring Boot, Helidon and Tomcat offer:
 * 5,000 direct and 5,000 relayed connections to one {@code TraverseServerSocket}, accepted by a
 * virtual thread and each read to end-of-stream on a virtual thread of its own; every stream is
 * checked (length and SHA-256 back to the client, then end-of-stream). JFR records carrier threads
 * pinned for 20 ms or more ({@code jdk.VirtualThreadPinned}) once each module has made its first
 * connection. Needs Java 21; CI runs it on Java 25, where a blocked {@code synchronized} no longer
 * pins (JEP 491), so none may be pinned.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class VirtualThreadServersTest {
    private static final Logger log = LoggerFactory.getLogger(VirtualThreadServersTest.class);
    private static final int PER_MODULE = 5_000;
    private static final int IN_FLIGHT = 200;
    private static final int BYTES = 4096;
    private static final int PORT = 7000;
    /** JFR's threshold for a pinned carrier; {@code -DpinnedThresholdMillis=0} shows every pin. */
    private static final long PINNED_MILLIS = Long.getLong("pinnedThresholdMillis", 20);

    private final LoopbackHubNetwork net = new LoopbackHubNetwork();

    @AfterEach
    void close() throws Exception {
        net.close();
    }

    @Test
    void tenThousandDirectAndRelayedConnectionsAreAcceptedAndReadOnVirtualThreads() throws Exception {
        assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21 (CI runs this test on Java 25)");
        Path jfr = Files.createTempFile("virtual-threads", ".jfr");
        ExecutorService virtualThreads = newVirtualThreadPerTaskExecutor();
        try (Recording recording = new Recording()) {
            recording
                    .enable("jdk.VirtualThreadPinned")
                    .withThreshold(Duration.ofMillis(PINNED_MILLIS))
                    .withStackTrace();

            Hub hub = net.hub("hub-v");
            Traverse server = net.node(hub);
            Traverse direct =
                    net.node(LoopbackHubNetwork.config(hub).modules("direct").build());
            Traverse relayed = net.node(LoopbackHubNetwork.config(hub)
                    .modules("routed")
                    .connectTimeout(Duration.ofSeconds(20))
                    .build());
            assertThat(relayed.awaitHubLink(Duration.ofSeconds(10))).isTrue();
            assertThat(server.awaitHubLink(Duration.ofSeconds(10))).isTrue();
            TraverseServerSocket listener = server.serverSocketFactory().createServerSocket(PORT, 1000);
            AtomicInteger servedOnVirtualThreads = new AtomicInteger();
            AtomicInteger servedElsewhere = new AtomicInteger();
            virtualThreads.submit(() -> {
                while (!listener.isClosed()) {
                    Socket s;
                    try {
                        s = listener.accept();
                    } catch (IOException e) {
                        return; // closed
                    }
                    virtualThreads.submit(() -> {
                        (isVirtual(Thread.currentThread()) ? servedOnVirtualThreads : servedElsewhere)
                                .incrementAndGet();
                        serve(s);
                    });
                }
            });

            VirtualSocketAddress target = server.address(PORT);
            // One connection per module before recording: classes loaded for the first time by many
            // virtual threads at once pin their carriers (class loading waits on a monitor under a
            // native frame, which JEP 491 leaves pinned). That is a one-off cost at start, not the
            // steady state this test is about.
            assertThat(exchange(direct, target, "direct", 1)).isEmpty();
            assertThat(exchange(relayed, target, "routed", 2)).isEmpty();
            servedOnVirtualThreads.set(0);
            servedElsewhere.set(0);
            recording.start();
            List<String> wrong = new ArrayList<>();
            long start = System.nanoTime();
            wrong.addAll(connectAll(direct, target, "direct", virtualThreads));
            long directMillis = (System.nanoTime() - start) / 1_000_000;
            start = System.nanoTime();
            wrong.addAll(connectAll(relayed, target, "routed", virtualThreads));
            long relayedMillis = (System.nanoTime() - start) / 1_000_000;
            listener.close();
            recording.stop();
            recording.dump(jfr);

            List<RecordedEvent> pinned = RecordingFile.readAllEvents(jfr).stream()
                    .filter(e -> e.getEventType().getName().equals("jdk.VirtualThreadPinned"))
                    .toList();
            log.info(
                    "Java {}: {} direct connections in {} ms, {} relayed in {} ms, {} {} at a time; served on virtual threads: {};"
                            + " carrier threads pinned for {} ms or more: {}",
                    Runtime.version(),
                    PER_MODULE,
                    directMillis,
                    PER_MODULE,
                    relayedMillis,
                    IN_FLIGHT,
                    "clients",
                    servedOnVirtualThreads.get(),
                    PINNED_MILLIS,
                    pinned.size());
            pinned.stream()
                    .limit(3)
                    .forEach(e -> log.warn("Pinned {} ms: {}", e.getDuration().toMillis(), e.getStackTrace()));
            assertThat(wrong)
                    .as("connections that did not verify (of %d)", 2 * PER_MODULE)
                    .isEmpty();
            assertThat(servedOnVirtualThreads).hasValue(2 * PER_MODULE);
            assertThat(servedElsewhere).hasValue(0);
            if (Runtime.version().feature() >= 24) {
                assertThat(pinned)
                        .as("carrier threads pinned for %d ms or more", PINNED_MILLIS)
                        .isEmpty();
            }
        } finally {
            virtualThreads.shutdownNow();
            Files.deleteIfExists(jfr);
        }
    }

    /** {@link #PER_MODULE} connections from {@code client}, {@link #IN_FLIGHT} at a time on virtual threads; what failed, in words. */
    private static List<String> connectAll(
            Traverse client, VirtualSocketAddress target, String module, ExecutorService threads) throws Exception {
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        List<CompletableFuture<String>> verdicts = new ArrayList<>();
        for (int i = 0; i < PER_MODULE; i++) {
            inFlight.acquire();
            long seed = i * 31L + module.hashCode();
            verdicts.add(CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return exchange(client, target, module, seed);
                        } finally {
                            inFlight.release();
                        }
                    },
                    threads));
        }
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < verdicts.size(); i++) {
            String verdict = verdicts.get(i).get(60, TimeUnit.SECONDS);
            if (!verdict.isEmpty()) {
                wrong.add(module + " " + i + ": " + verdict);
            }
        }
        return wrong;
    }

    /** Sends seeded bytes, half-closes, checks the server's length and digest of them and then end-of-stream; "" if all is well. */
    private static String exchange(Traverse client, VirtualSocketAddress target, String module, long seed) {
        byte[] data = new byte[BYTES];
        new SplittableRandom(seed).nextBytes(data);
        try (Socket s = client.socketFactory().createSocket()) {
            s.connect(target, 20_000);
            s.setSoTimeout(30_000);
            String made = client.connectionInfo(s).map(i -> i.module()).orElse("?");
            if (!made.equals(module)) {
                return "made by " + made + ", not " + module;
            }
            s.getOutputStream().write(data);
            s.shutdownOutput();
            DataInputStream in = new DataInputStream(s.getInputStream());
            long length = in.readLong();
            byte[] digest = new byte[32];
            in.readFully(digest);
            if (length != BYTES || !Arrays.equals(digest, sha256().digest(data))) {
                return "the server read " + length + " bytes with another digest";
            }
            if (in.read() != -1) {
                return "bytes after the digest";
            }
            return "";
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** Reads to end-of-stream, answers the length and SHA-256 of what came, closes. */
    private static void serve(Socket s) {
        try (s) {
            s.setSoTimeout(30_000);
            MessageDigest digest = sha256();
            InputStream in = s.getInputStream();
            byte[] buffer = new byte[8192];
            long length = 0;
            for (int n; (n = in.read(buffer)) >= 0; ) {
                digest.update(buffer, 0, n);
                length += n;
            }
            DataOutputStream out = new DataOutputStream(s.getOutputStream());
            out.writeLong(length);
            out.write(digest.digest());
            out.flush();
        } catch (IOException e) {
            log.warn("Serving {} failed: {}", s, e.toString());
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Java 21's API, called reflectively: the project compiles for Java 17. */
    private static ExecutorService newVirtualThreadPerTaskExecutor() throws ReflectiveOperationException {
        return (ExecutorService)
                Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }

    private static boolean isVirtual(Thread t) {
        try {
            return (boolean) Thread.class.getMethod("isVirtual").invoke(t);
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
