package io.traverse.hub.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.traverse.discovery.DiscoveredHub;
import io.traverse.discovery.DiscoveryDatagram;
import io.traverse.discovery.HubFinder;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real responder and the real finder on loopback. Loopback has no multicast flag on Linux,
 * yet the kernel delivers multicast sent out of {@code lo} to members on {@code lo}: the multicast
 * test names the loopback interface explicitly on both sides. Broadcast is tested with the
 * loopback network's broadcast address 127.255.255.255, unicast with 127.0.0.1.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DiscoveryResponderTest {
    private static final InetSocketAddress WILDCARD_LINK = new InetSocketAddress("0.0.0.0", 17000);
    private static final InetSocketAddress PUBLIC_LINK = new InetSocketAddress("198.18.0.5", 17001);
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
    }

    @Test
    void unicastProbeToThisHostFindsTheHubAtTheAddressItWasReachedAt() throws Exception {
        DiscoveryResponder responder =
                start(DiscoveryResponder.builder("hub-a", () -> List.of(WILDCARD_LINK, PUBLIC_LINK)));
        List<DiscoveredHub> hubs = probeOnly(responder).localHost(true).build().find();
        assertThat(hubs).hasSize(1);
        assertThat(hubs.get(0).name()).isEqualTo("hub-a");
        assertThat(hubs.get(0).linkAddresses()).containsExactly(new InetSocketAddress("127.0.0.1", 17000), PUBLIC_LINK);
        assertThat(responder.answered()).isPositive();
    }

    @Test
    void broadcastProbeOnTheLoopbackNetworkIsAnswered() throws Exception {
        DiscoveryResponder responder = start(DiscoveryResponder.builder("hub-b", () -> List.of(PUBLIC_LINK)));
        int port = responder.localAddress().getPort();
        List<DiscoveredHub> hubs = probeOnly(responder)
                .alsoProbe(List.of(new InetSocketAddress("127.255.255.255", port)))
                .build()
                .find();
        assertThat(hubs).extracting(DiscoveredHub::name).containsExactly("hub-b");
    }

    @Test
    void multicastProbeOnAnExplicitInterfaceIsAnswered() throws Exception {
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getByName("127.0.0.1"));
        DiscoveryResponder responder = start(
                DiscoveryResponder.builder("hub-c", () -> List.of(PUBLIC_LINK)).interfaces(List.of(lo)));
        List<DiscoveredHub> hubs = probeOnly(responder)
                .multicast(true)
                .multicastInterfaces(List.of(lo))
                .build()
                .find();
        assertThat(hubs).extracting(DiscoveredHub::name).containsExactly("hub-c");
    }

    @Test
    void garbageGetsNoAnswerAndTheHubKeepsAnsweringOthers() throws Exception {
        DiscoveryResponder responder = start(DiscoveryResponder.builder("hub-d", () -> List.of(PUBLIC_LINK)));
        byte[] probe = DiscoveryDatagram.encode(new DiscoveryDatagram.Probe(new byte[16]));
        List<byte[]> garbage = new ArrayList<>();
        garbage.add(new byte[0]);
        garbage.add("GET / HTTP/1.1\r\n\r\n".getBytes());
        garbage.add(Arrays.copyOf(probe, 63)); // truncated
        garbage.add(Arrays.copyOf(probe, 65)); // oversized
        garbage.add(new byte[60_000]); // huge
        byte[] wrongVersion = probe.clone();
        wrongVersion[4] = 9;
        garbage.add(wrongVersion);
        byte[] answerAsProbe =
                DiscoveryDatagram.encode(new DiscoveryDatagram.Answer(new byte[16], "x", List.of(PUBLIC_LINK)));
        garbage.add(answerAsProbe); // an answer sent to the hub (a reflection attempt)
        try (DatagramSocket attacker = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            for (byte[] g : garbage) {
                attacker.send(new DatagramPacket(
                        g,
                        g.length,
                        new InetSocketAddress(
                                "127.0.0.1", responder.localAddress().getPort())));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> responder.ignored() == garbage.size());
            attacker.setSoTimeout(300);
            DatagramPacket p = new DatagramPacket(new byte[1024], 1024);
            try {
                attacker.receive(p);
                throw new AssertionError("garbage was answered with " + p.getLength() + " bytes");
            } catch (SocketTimeoutException expected) {
                // no answer, as it should be
            }
        }
        assertThat(responder.answered()).isZero();
        assertThat(probeOnly(responder).localHost(true).build().find())
                .extracting(DiscoveredHub::name)
                .containsExactly("hub-d");
    }

    @Test
    void answersToOneSourceAreRateLimited() throws Exception {
        DiscoveryResponder responder = start(
                DiscoveryResponder.builder("hub-e", () -> List.of(PUBLIC_LINK)).answerRatePerSource(0.1, 3));
        byte[] probe = DiscoveryDatagram.encode(new DiscoveryDatagram.Probe(new byte[16]));
        try (DatagramSocket prober = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            for (int i = 0; i < 20; i++) {
                prober.send(new DatagramPacket(
                        probe,
                        probe.length,
                        new InetSocketAddress(
                                "127.0.0.1", responder.localAddress().getPort())));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> responder.answered() + responder.rateLimited() == 20);
            int answers = 0;
            prober.setSoTimeout(300);
            try {
                while (true) {
                    prober.receive(new DatagramPacket(new byte[1024], 1024));
                    answers++;
                }
            } catch (SocketTimeoutException done) {
                // every answer read
            }
            assertThat(answers).isEqualTo(3);
            assertThat(responder.rateLimited()).isEqualTo(17);
        }
    }

    @Test
    void closeFreesThePortAndIsIdempotent() throws Exception {
        DiscoveryResponder responder = DiscoveryResponder.builder("hub-f", () -> List.of(PUBLIC_LINK))
                .port(0)
                .build();
        responder.start();
        int port = responder.localAddress().getPort();
        responder.close();
        responder.close();
        try (DatagramSocket again = new DatagramSocket(new InetSocketAddress("0.0.0.0", port))) {
            assertThat(again.getLocalPort()).isEqualTo(port);
        }
    }

    private DiscoveryResponder start(DiscoveryResponder.Builder builder) throws Exception {
        DiscoveryResponder responder = builder.port(0).build();
        toClose.add(responder);
        responder.start();
        return responder;
    }

    /** A finder for this responder's port with every path off: each test turns on the one it tests. */
    private static HubFinder.Builder probeOnly(DiscoveryResponder responder) {
        return HubFinder.builder()
                .port(responder.localAddress().getPort())
                .multicast(false)
                .broadcast(false)
                .localHost(false)
                .window(Duration.ofSeconds(3))
                .settle(Duration.ofMillis(50));
    }
}
