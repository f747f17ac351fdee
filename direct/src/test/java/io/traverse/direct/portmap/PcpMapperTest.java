package io.traverse.direct.portmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** PCP mappings against a scripted server on loopback that keeps RFC 6887 §11.3's nonce rule. */
@Timeout(30)
class PcpMapperTest {
    private static final int NOT_AUTHORIZED = 2;
    private DatagramSocket server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /**
     * Grants TCP mappings (external port = internal port, 11.200.0.1) and, as §11.3 requires, refuses
     * with NOT_AUTHORIZED a request for an internal port mapped under another nonce; lifetime 0 deletes.
     */
    private InetSocketAddress serve() throws Exception {
        server = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        Map<Integer, byte[]> owners = new HashMap<>();
        Thread serving = new Thread(() -> {
            byte[] buf = new byte[1100];
            while (!server.isClosed()) {
                try {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    server.receive(p);
                    ByteBuffer b = ByteBuffer.wrap(p.getData(), 0, p.getLength());
                    long lifetime = Integer.toUnsignedLong(b.getInt(4));
                    byte[] nonce = Arrays.copyOfRange(p.getData(), 24, 36);
                    int internal = Short.toUnsignedInt(b.getShort(40));
                    byte[] owner = owners.get(internal);
                    byte[] reply;
                    if (owner != null && !Arrays.equals(owner, nonce)) {
                        reply = PcpCodecTest.response(
                                2, 0x81, NOT_AUTHORIZED, 3000, nonce, 6, internal, 0, "0.0.0.0", 60);
                    } else if (lifetime == 0) {
                        owners.remove(internal);
                        reply = PcpCodecTest.response(2, 0x81, 0, 0, nonce, 6, internal, 0, "0.0.0.0", 60);
                    } else {
                        owners.put(internal, nonce);
                        reply = PcpCodecTest.response(
                                2, 0x81, 0, lifetime, nonce, 6, internal, internal, "11.200.0.1", 60);
                    }
                    server.send(new DatagramPacket(reply, reply.length, p.getSocketAddress()));
                } catch (java.io.IOException e) {
                    return;
                }
            }
        });
        serving.setDaemon(true);
        serving.start();
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    @Test
    void mappingAgainAfterALostRenewalIsGrantedBecauseTheNonceIsKept() throws Exception {
        PcpMapper mapper = new PcpMapper(serve());
        MappedPort first = mapper.map(6000, Duration.ofHours(1));
        // The renewal got no answer (a lossy minute): ListeningPortMapping withdraws and maps again,
        // while the router still holds the mapping under the first nonce.
        MappedPort again = mapper.map(6000, Duration.ofHours(1));
        assertThat(again.external()).isEqualTo(new InetSocketAddress("11.200.0.1", 6000));
        assertThat(again.nonce()).isEqualTo(first.nonce());
        mapper.unmap(again);
    }

    @Test
    void renewalRepeatsTheNonceAndDeletionFreesThePort() throws Exception {
        InetSocketAddress at = serve();
        PcpMapper mapper = new PcpMapper(at);
        MappedPort made = mapper.map(6001, Duration.ofHours(1));
        MappedPort renewed = mapper.renew(made, Duration.ofHours(1));
        assertThat(renewed.nonce()).isEqualTo(made.nonce());
        mapper.unmap(renewed);
        MappedPort byAnother = new PcpMapper(at).map(6001, Duration.ofHours(1));
        assertThat(byAnother.external().getPort())
                .as("the port is free once deleted")
                .isEqualTo(6001);
    }
}
