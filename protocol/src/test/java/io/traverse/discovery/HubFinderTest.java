package io.traverse.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The finder against a scripted fake hub on 127.0.0.1 (unicast: the path that works on every
 * loopback; multicast and broadcast are tested against the real responder in the hub module).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HubFinderTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void takesTheRightAnswerAndIgnoresGarbageAndAnswersToOtherProbes() throws Exception {
        try (FakeHub hub = new FakeHub(probe -> List.of(
                "garbage".getBytes(),
                DiscoveryDatagram.encode(new DiscoveryDatagram.Answer(new byte[16], "impostor", List.of(link(1)))),
                DiscoveryDatagram.encode(new DiscoveryDatagram.Answer(
                        probe.nonce(), "hub-a", List.of(new InetSocketAddress("0.0.0.0", 17000), link(17001))))))) {
            List<DiscoveredHub> hubs = finder(hub.port()).find();
            assertThat(hubs).hasSize(1);
            DiscoveredHub found = hubs.get(0);
            assertThat(found.name()).isEqualTo("hub-a");
            // the wildcard became the address the answer came from
            assertThat(found.linkAddresses()).containsExactly(new InetSocketAddress(LOOPBACK, 17000), link(17001));
            assertThat(found.answeredFrom()).isEqualTo(new InetSocketAddress(LOOPBACK, hub.port()));
        }
    }

    @Test
    void endsShortlyAfterTheFirstAnswerInsteadOfWaitingOutTheWindow() throws Exception {
        try (FakeHub hub = new FakeHub(probe -> List.of(DiscoveryDatagram.encode(
                new DiscoveryDatagram.Answer(probe.nonce(), "hub-a", List.of(link(17000))))))) {
            long start = System.nanoTime();
            List<DiscoveredHub> hubs = HubFinder.builder()
                    .port(hub.port())
                    .multicast(false)
                    .broadcast(false)
                    .localHost(true)
                    .window(Duration.ofSeconds(20))
                    .settle(Duration.ofMillis(100))
                    .build()
                    .find();
            assertThat(hubs).extracting(DiscoveredHub::name).containsExactly("hub-a");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void nobodyAnsweringGivesAnEmptyListAfterTheWindow() throws Exception {
        try (FakeHub silent = new FakeHub(probe -> List.of())) {
            long start = System.nanoTime();
            List<DiscoveredHub> hubs = finder(silent.port()).find();
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertThat(hubs).isEmpty();
            assertThat(tookMillis).isBetween(400L, 5_000L);
            // the probe was resent within the window (UDP may drop one)
            assertThat(silent.probesSeen()).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void backgroundSearchCanBeCancelled() throws Exception {
        try (FakeHub silent = new FakeHub(probe -> List.of())) {
            CompletableFuture<List<DiscoveredHub>> search = HubFinder.builder()
                    .port(silent.port())
                    .multicast(false)
                    .broadcast(false)
                    .window(Duration.ofMinutes(5))
                    .build()
                    .findInBackground();
            assertThat(search.cancel(true)).isTrue();
            assertThat(search).isCancelled();
        }
    }

    private static HubFinder finder(int port) {
        return HubFinder.builder()
                .port(port)
                .multicast(false)
                .broadcast(false)
                .localHost(true)
                .window(Duration.ofMillis(500))
                .settle(Duration.ofMillis(50))
                .build();
    }

    private static InetSocketAddress link(int port) {
        return new InetSocketAddress("198.18.0.1", port);
    }

    /** Answers every probe on 127.0.0.1 with scripted datagrams. */
    private static final class FakeHub implements AutoCloseable {
        private final DatagramSocket socket;
        private final Thread thread;
        private volatile int probesSeen;

        FakeHub(Function<DiscoveryDatagram.Probe, List<byte[]>> script) throws SocketException {
            socket = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
            thread = new Thread(
                    () -> {
                        byte[] buf = new byte[1024];
                        while (!socket.isClosed()) {
                            try {
                                DatagramPacket p = new DatagramPacket(buf, buf.length);
                                socket.receive(p);
                                DiscoveryDatagram.Probe probe =
                                        DiscoveryDatagram.decodeProbe(p.getData(), p.getLength());
                                probesSeen++;
                                for (byte[] out : script.apply(probe)) {
                                    socket.send(new DatagramPacket(out, out.length, p.getSocketAddress()));
                                }
                            } catch (Exception e) {
                                // closed, or not a probe
                            }
                        }
                    },
                    "fake-hub");
            thread.setDaemon(true);
            thread.start();
        }

        int port() {
            return socket.getLocalPort();
        }

        int probesSeen() {
            return probesSeen;
        }

        @Override
        public void close() throws InterruptedException {
            socket.close();
            thread.join(2000);
        }
    }
}
