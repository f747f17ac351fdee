package io.traverse.direct.portmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** NAT-PMP messages as RFC 6886 §3.2–3.4 lays them out, and replies that must be rejected. */
class NatPmpCodecTest {
    @Test
    void requestsHaveTheRfcLayout() {
        assertThat(NatPmpCodec.externalAddressRequest()).containsExactly(0, 0);
        byte[] map = NatPmpCodec.mapTcpRequest(6000, 7000, 3600);
        assertThat(map).containsExactly(0, 2, 0, 0, 0x17, 0x70, 0x1B, 0x58, 0, 0, 0x0E, 0x10);
        byte[] delete = NatPmpCodec.mapTcpRequest(6000, 0, 0);
        assertThat(ByteBuffer.wrap(delete).getInt(8)).isZero();
        assertThat(ByteBuffer.wrap(delete).getShort(6)).isZero();
    }

    @Test
    void requestsRejectOutOfRangeValues() {
        assertThatThrownBy(() -> NatPmpCodec.mapTcpRequest(0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NatPmpCodec.mapTcpRequest(1, 65536, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NatPmpCodec.mapTcpRequest(1, 1, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NatPmpCodec.mapTcpRequest(1, 1, 1L << 32))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parsesAnExternalAddressReply() throws Exception {
        byte[] reply = ByteBuffer.allocate(12)
                .put((byte) 0)
                .put((byte) 128)
                .putShort((short) 0)
                .putInt(4242)
                .put(new byte[] {11, (byte) 200, 0, 1})
                .array();
        NatPmpCodec.ExternalAddressReply r = NatPmpCodec.parseExternalAddressReply(reply, reply.length);
        assertThat(r.epochSeconds()).isEqualTo(4242);
        assertThat(r.address()).isEqualTo(InetAddress.getByName("11.200.0.1"));
    }

    @Test
    void aRouterWithoutAnExternalAddressMapsNothingUsable() {
        // 0.0.0.0: the router has no public address yet; advertising 0.0.0.0:port would help nobody.
        byte[] reply = ByteBuffer.allocate(12)
                .put((byte) 0)
                .put((byte) 128)
                .putShort((short) 0)
                .putInt(4242)
                .put(new byte[4])
                .array();
        assertThatThrownBy(() -> NatPmpCodec.parseExternalAddressReply(reply, reply.length))
                .isInstanceOfSatisfying(
                        PortMappingException.class,
                        e -> assertThat(e.isRefusal()).isTrue())
                .hasMessageContaining("no external address");
    }

    @Test
    void parsesAMapReplyWithUnsignedFields() throws Exception {
        byte[] reply = mapReply(0, 130, 0, 60000, 65535, 0xFFFF_FFFFL, 16);
        NatPmpCodec.MapReply r = NatPmpCodec.parseMapReply(reply, reply.length);
        assertThat(r.internalPort()).isEqualTo(60000);
        assertThat(r.externalPort()).isEqualTo(65535);
        assertThat(r.lifetimeSeconds()).isEqualTo(0xFFFF_FFFFL);
    }

    @Test
    void rejectsShortWrongVersionWrongOpcodeAndRefusals() {
        byte[] good = mapReply(0, 130, 0, 6000, 6000, 3600, 16);
        assertThatThrownBy(() -> NatPmpCodec.parseMapReply(good, 3))
                .isInstanceOf(PortMappingException.class)
                .hasMessageContaining("too short");
        assertThatThrownBy(() -> NatPmpCodec.parseMapReply(good, 15))
                .isInstanceOf(PortMappingException.class)
                .hasMessageContaining("shorter than 16");
        byte[] pcpVersion = mapReply(2, 130, 0, 6000, 6000, 3600, 16);
        assertThatThrownBy(() -> NatPmpCodec.parseMapReply(pcpVersion, 16))
                .isInstanceOf(PortMappingException.class)
                .hasMessageContaining("version 2");
        byte[] udpReply = mapReply(0, 129, 0, 6000, 6000, 3600, 16);
        assertThatThrownBy(() -> NatPmpCodec.parseMapReply(udpReply, 16)).hasMessageContaining("opcode 129");
        byte[] request = mapReply(0, 2, 0, 6000, 6000, 3600, 16);
        assertThatThrownBy(() -> NatPmpCodec.parseMapReply(request, 16)).hasMessageContaining("opcode 2");
        byte[] refused = mapReply(0, 130, 2, 6000, 6000, 3600, 16);
        assertThatThrownBy(() -> NatPmpCodec.parseMapReply(refused, 16))
                .isInstanceOfSatisfying(PortMappingException.class, e -> {
                    assertThat(e.isRefusal()).isTrue();
                    assertThat(e).hasMessageContaining("not authorized");
                });
        byte[] shortAddress = {0, (byte) 128, 0, 0, 0, 0, 0, 1, 11};
        assertThatThrownBy(() -> NatPmpCodec.parseExternalAddressReply(shortAddress, shortAddress.length))
                .hasMessageContaining("shorter than 12");
    }

    @Test
    void aRefusalIsTheRoutersAnswerButAMalformedReplyIsNot() {
        byte[] wrongVersion = mapReply(1, 130, 0, 1, 1, 1, 16);
        assertThatThrownBy(() -> NatPmpCodec.parseMapReply(wrongVersion, 16))
                .isInstanceOfSatisfying(
                        PortMappingException.class,
                        e -> assertThat(e.isRefusal()).isFalse());
    }

    static byte[] mapReply(int version, int opcode, int result, int internal, int external, long lifetime, int length) {
        ByteBuffer b = ByteBuffer.allocate(Math.max(16, length));
        b.put((byte) version)
                .put((byte) opcode)
                .putShort((short) result)
                .putInt(77)
                .putShort((short) internal)
                .putShort((short) external)
                .putInt((int) lifetime);
        return b.array();
    }
}
