package io.traverse.direct.portmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** PCP MAP requests and responses as RFC 6887 §7.1, §7.2 and §11.1 lay them out, and responses that must be rejected. */
class PcpCodecTest {
    private static final byte[] NONCE = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};

    @Test
    void mapRequestHasTheRfcLayout() throws Exception {
        byte[] r = PcpCodec.mapRequest(InetAddress.getByName("10.0.7.2"), NONCE, 6000, 6001, null, 7200);
        assertThat(r).hasSize(60);
        ByteBuffer b = ByteBuffer.wrap(r);
        assertThat(b.get(0)).isEqualTo((byte) 2); // version
        assertThat(b.get(1)).isEqualTo((byte) 1); // R=0, MAP
        assertThat(b.getShort(2)).isZero();
        assertThat(b.getInt(4)).isEqualTo(7200);
        assertThat(Arrays.copyOfRange(r, 8, 24)).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 7, 2);
        assertThat(Arrays.copyOfRange(r, 24, 36)).containsExactly(NONCE);
        assertThat(r[36]).isEqualTo((byte) 6); // TCP
        assertThat(Arrays.copyOfRange(r, 37, 40)).containsExactly(0, 0, 0);
        assertThat(Short.toUnsignedInt(b.getShort(40))).isEqualTo(6000);
        assertThat(Short.toUnsignedInt(b.getShort(42))).isEqualTo(6001);
        // No suggested external address: ::ffff:0.0.0.0 for IPv4 (§11.1).
        assertThat(Arrays.copyOfRange(r, 44, 60)).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0);
    }

    @Test
    void mapRequestRejectsBadArguments() throws Exception {
        InetAddress client = InetAddress.getByName("10.0.0.2");
        assertThatThrownBy(() -> PcpCodec.mapRequest(client, new byte[11], 1, 1, null, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PcpCodec.mapRequest(client, NONCE, 0, 1, null, 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PcpCodec.mapRequest(client, NONCE, 1, 1, null, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parsesAMapResponse() throws Exception {
        byte[] r = response(2, 0x81, 0, 3600, NONCE, 6, 6000, 40000, "11.200.0.1", 60);
        PcpCodec.MapResponse m = PcpCodec.parseMapResponse(r, r.length, NONCE);
        assertThat(m.lifetimeSeconds()).isEqualTo(3600);
        assertThat(m.internalPort()).isEqualTo(6000);
        assertThat(m.externalPort()).isEqualTo(40000);
        assertThat(m.externalAddress()).isInstanceOf(Inet4Address.class).isEqualTo(InetAddress.getByName("11.200.0.1"));
    }

    @Test
    void rejectsMalformedShortAndWrongResponses() {
        byte[] good = response(2, 0x81, 0, 3600, NONCE, 6, 6000, 6000, "11.200.0.1", 60);
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(good, 2, NONCE)).hasMessageContaining("too short");
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(good, 22, NONCE)).hasMessageContaining("24-1100");
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(good, 58, NONCE)).hasMessageContaining("whole 32-bit words");
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(good, 56, NONCE))
                .hasMessageContaining("no room for the MAP payload");
        byte[] tooLong = Arrays.copyOf(good, 1104);
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(tooLong, 1104, NONCE))
                .hasMessageContaining("24-1100");
        byte[] v3 = response(3, 0x81, 0, 3600, NONCE, 6, 6000, 6000, "11.200.0.1", 60);
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(v3, 60, NONCE)).hasMessageContaining("version 3");
        byte[] noR = response(2, 0x01, 0, 3600, NONCE, 6, 6000, 6000, "11.200.0.1", 60);
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(noR, 60, NONCE)).hasMessageContaining("R/opcode 0x1");
        byte[] peer = response(2, 0x82, 0, 3600, NONCE, 6, 6000, 6000, "11.200.0.1", 60);
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(peer, 60, NONCE)).hasMessageContaining("R/opcode 0x82");
        byte[] otherNonce = response(2, 0x81, 0, 3600, new byte[12], 6, 6000, 6000, "11.200.0.1", 60);
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(otherNonce, 60, NONCE))
                .hasMessageContaining("nonce");
        byte[] udp = response(2, 0x81, 0, 3600, NONCE, 17, 6000, 6000, "11.200.0.1", 60);
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(udp, 60, NONCE)).hasMessageContaining("protocol 17");
    }

    @Test
    void resultCodesAreRefusalsAndAVersionZeroReplyMeansNatPmpOnly() {
        byte[] refused = response(2, 0x81, 8, 30, NONCE, 6, 6000, 0, "0.0.0.0", 60);
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(refused, 60, NONCE))
                .isInstanceOfSatisfying(PortMappingException.class, e -> {
                    assertThat(e.isRefusal()).isTrue();
                    assertThat(e).hasMessageContaining("no resources").hasMessageContaining("result code 8");
                });
        // A NAT-PMP-only router answers a PCP request with NAT-PMP's "unsupported version" (RFC 6887 §9).
        byte[] natPmp = {0, (byte) 0x81, 0, 1, 0, 0, 0, 5};
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(natPmp, natPmp.length, NONCE))
                .isInstanceOfSatisfying(PortMappingException.class, e -> {
                    assertThat(e.isRefusal()).isTrue();
                    assertThat(e).hasMessageContaining("NAT-PMP only");
                });
    }

    @Test
    void anErrorResponseForAnotherMappingIsNotTheRoutersAnswer() {
        // RFC 6887 §11.5: a response is matched to the request by its nonce (and protocol) before its
        // result counts; an error naming another nonce is a stray or forged datagram and must not end
        // the exchange as a refusal would.
        byte[] otherNonce = response(2, 0x81, 2, 0, new byte[12], 6, 6000, 0, "0.0.0.0", 60);
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(otherNonce, 60, NONCE))
                .isInstanceOfSatisfying(
                        PortMappingException.class,
                        e -> assertThat(e.isRefusal()).isFalse())
                .hasMessageContaining("nonce");
        byte[] otherProtocol = response(2, 0x81, 2, 0, NONCE, 17, 6000, 0, "0.0.0.0", 60);
        assertThatThrownBy(() -> PcpCodec.parseMapResponse(otherProtocol, 60, NONCE))
                .isInstanceOfSatisfying(
                        PortMappingException.class,
                        e -> assertThat(e.isRefusal()).isFalse())
                .hasMessageContaining("protocol 17");
    }

    @Test
    void addressesRoundTripThroughTheirIpv6Form() throws Exception {
        for (String ip : new String[] {"11.200.0.1", "2001:db8::7"}) {
            InetAddress a = InetAddress.getByName(ip);
            assertThat(PcpCodec.fromIpv6Form(PcpCodec.ipv6Form(a))).isEqualTo(a);
        }
    }

    static byte[] response(
            int version,
            int rOp,
            int result,
            long lifetime,
            byte[] nonce,
            int protocol,
            int internal,
            int external,
            String externalIp,
            int length) {
        ByteBuffer b = ByteBuffer.allocate(Math.max(60, length));
        b.put((byte) version)
                .put((byte) rOp)
                .put((byte) 0)
                .put((byte) result)
                .putInt((int) lifetime)
                .putInt(99)
                .put(new byte[12]);
        b.put(nonce)
                .put((byte) protocol)
                .put(new byte[3])
                .putShort((short) internal)
                .putShort((short) external);
        try {
            b.put(PcpCodec.ipv6Form(InetAddress.getByName(externalIp)));
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
        return b.array();
    }
}
