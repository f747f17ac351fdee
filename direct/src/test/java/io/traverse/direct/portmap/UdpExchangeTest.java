package io.traverse.direct.portmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Retransmission, stray and malformed replies, and refusals, against a scripted NAT-PMP server on loopback. */
@Timeout(20)
class UdpExchangeTest {
    private DatagramSocket server;
    private Thread serving;
    private final List<Long> requestTimes = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /** Answers the n-th request (from 1) with what {@code answers} gives; null: stays silent. */
    private InetSocketAddress serve(IntFunction<List<byte[]>> answers) throws Exception {
        server = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        serving = new Thread(() -> {
            byte[] buf = new byte[1200];
            int n = 0;
            while (!server.isClosed()) {
                try {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    server.receive(p);
                    requestTimes.add(System.nanoTime());
                    List<byte[]> replies = answers.apply(++n);
                    if (replies != null) {
                        for (byte[] r : replies) {
                            server.send(new DatagramPacket(r, r.length, p.getSocketAddress()));
                        }
                    }
                } catch (java.io.IOException e) {
                    return;
                }
            }
        });
        serving.setDaemon(true);
        serving.start();
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    private static final byte[] GOOD = NatPmpCodecTest.mapReply(0, 130, 0, 6000, 6000, 3600, 16);

    @Test
    void retransmitsWithDoublingWaitsUntilAnswered() throws Exception {
        InetSocketAddress at = serve(n -> n < 3 ? null : List.of(GOOD));
        UdpExchange exchange = new UdpExchange(at, Duration.ofMillis(100), 4);
        NatPmpCodec.MapReply r =
                exchange.exchange(NatPmpCodec.mapTcpRequest(6000, 6000, 3600), NatPmpCodec::parseMapReply, "map");
        assertThat(r.externalPort()).isEqualTo(6000);
        assertThat(requestTimes).hasSize(3);
        long firstGap = (requestTimes.get(1) - requestTimes.get(0)) / 1_000_000;
        long secondGap = (requestTimes.get(2) - requestTimes.get(1)) / 1_000_000;
        assertThat(firstGap).isGreaterThanOrEqualTo(90);
        assertThat(secondGap).isGreaterThanOrEqualTo(190);
    }

    @Test
    void givesUpAfterTheBoundedNumberOfTries() throws Exception {
        InetSocketAddress at = serve(n -> null);
        UdpExchange exchange = new UdpExchange(at, Duration.ofMillis(50), 3);
        assertThatThrownBy(() -> exchange.exchange(
                        NatPmpCodec.mapTcpRequest(6000, 6000, 3600), NatPmpCodec::parseMapReply, "map"))
                .isInstanceOf(PortMappingException.class)
                .hasMessageContaining("after 3 tries");
        assertThat(requestTimes).hasSize(3);
    }

    @Test
    void malformedRepliesAreSkippedAndTheValidOneIsTaken() throws Exception {
        byte[] shortReply = {0, (byte) 130};
        byte[] wrongVersion = NatPmpCodecTest.mapReply(2, 130, 0, 6000, 6000, 3600, 16);
        InetSocketAddress at = serve(n -> List.of(shortReply, wrongVersion, GOOD));
        UdpExchange exchange = new UdpExchange(at, Duration.ofMillis(500), 2);
        NatPmpCodec.MapReply r =
                exchange.exchange(NatPmpCodec.mapTcpRequest(6000, 6000, 3600), NatPmpCodec::parseMapReply, "map");
        assertThat(r.lifetimeSeconds()).isEqualTo(3600);
        assertThat(requestTimes).hasSize(1);
    }

    @Test
    void onlyMalformedRepliesFailWithTheLastReason() throws Exception {
        InetSocketAddress at = serve(n -> List.of(new byte[] {0, (byte) 130, 0}));
        UdpExchange exchange = new UdpExchange(at, Duration.ofMillis(50), 2);
        assertThatThrownBy(() -> exchange.exchange(
                        NatPmpCodec.mapTcpRequest(6000, 6000, 3600), NatPmpCodec::parseMapReply, "map"))
                .hasMessageContaining("after 2 tries")
                .hasMessageContaining("too short");
    }

    @Test
    void aRefusalEndsTheExchangeAtOnce() throws Exception {
        InetSocketAddress at = serve(n -> List.of(NatPmpCodecTest.mapReply(0, 130, 4, 6000, 0, 0, 16)));
        UdpExchange exchange = new UdpExchange(at, Duration.ofMillis(500), 4);
        assertThatThrownBy(() -> exchange.exchange(
                        NatPmpCodec.mapTcpRequest(6000, 6000, 3600), NatPmpCodec::parseMapReply, "map"))
                .isInstanceOfSatisfying(
                        PortMappingException.class,
                        e -> assertThat(e.isRefusal()).isTrue())
                .hasMessageContaining("out of resources");
        assertThat(requestTimes).hasSize(1);
    }

    @Test
    void repliesFromAnyOtherAddressOrPortAreIgnored() throws Exception {
        // Before the router answers, other hosts (another port on this address, another loopback
        // address) send the client a refusal and a reply naming another port: neither counts.
        byte[] spoofedRefusal = NatPmpCodecTest.mapReply(0, 130, 2, 6000, 0, 0, 16);
        byte[] spoofedMapping = NatPmpCodecTest.mapReply(0, 130, 0, 6000, 7777, 3600, 16);
        try (DatagramSocket otherPort = new DatagramSocket(0, InetAddress.getLoopbackAddress());
                DatagramSocket otherHost = new DatagramSocket(0, InetAddress.getByName("127.0.0.2"))) {
            server = new DatagramSocket(0, InetAddress.getLoopbackAddress());
            InetSocketAddress at = (InetSocketAddress) server.getLocalSocketAddress();
            Thread router = new Thread(() -> {
                try {
                    DatagramPacket p = new DatagramPacket(new byte[1200], 1200);
                    server.receive(p);
                    for (DatagramSocket spoofer : List.of(otherPort, otherHost)) {
                        spoofer.send(new DatagramPacket(spoofedRefusal, spoofedRefusal.length, p.getSocketAddress()));
                        spoofer.send(new DatagramPacket(spoofedMapping, spoofedMapping.length, p.getSocketAddress()));
                    }
                    Thread.sleep(100);
                    server.send(new DatagramPacket(GOOD, GOOD.length, p.getSocketAddress()));
                } catch (java.io.IOException | InterruptedException e) {
                    // the exchange then fails, and the assertion with it
                }
            });
            router.setDaemon(true);
            router.start();
            UdpExchange exchange = new UdpExchange(at, Duration.ofMillis(1000), 1);
            NatPmpCodec.MapReply r =
                    exchange.exchange(NatPmpCodec.mapTcpRequest(6000, 6000, 3600), NatPmpCodec::parseMapReply, "map");
            assertThat(r.externalPort()).isEqualTo(6000);
            assertThat(r.lifetimeSeconds()).isEqualTo(3600);
        }
    }

    @Test
    void noServerIsReportedFromTheIcmpError() throws Exception {
        int closedPort;
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        UdpExchange exchange = new UdpExchange(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), closedPort), Duration.ofMillis(200), 3);
        assertThatThrownBy(() -> exchange.exchange(
                        NatPmpCodec.externalAddressRequest(), NatPmpCodec::parseExternalAddressReply, "ext"))
                .isInstanceOf(PortMappingException.class)
                .hasMessageContaining("ICMP port unreachable");
    }
}
