package io.traverse.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.traverse.identity.NodeId;
import io.traverse.protocol.ProtocolException;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class RelayCodecTest {
    private static final NodeId OPENER = NodeId.of("opener-1");
    private static final NodeId ACCEPTOR = NodeId.of("acceptor-2");

    @Test
    void openAndItsAnswersRoundTripWithTheirFields() throws Exception {
        Relay open = Relay.open(0xFFFF_FFFF_FFFF_FFF0L, OPENER, ACCEPTOR, 65535, 0xFFFF_FFFFL);
        Relay decoded = roundTrip(open);
        assertThat(decoded.connectionId()).isEqualTo(0xFFFF_FFFF_FFFF_FFF0L);
        assertThat(decoded.virtualPort()).isEqualTo(65535);
        assertThat(decoded.credit()).isEqualTo(0xFFFF_FFFFL);
        assertThat(decoded.hopsLeft()).isEqualTo(LinkLimits.DEFAULT_RELAY_HOPS);
        assertThat(decoded.destination()).isEqualTo(ACCEPTOR);
        assertThat(decoded.source()).isEqualTo(OPENER);

        Relay accept = roundTrip(open.accept(256 * 1024));
        assertThat(accept.kind()).isEqualTo(RelayKind.ACCEPT);
        assertThat(accept.direction()).isEqualTo(RelayDirection.TOWARD_OPENER);
        assertThat(accept.destination()).isEqualTo(OPENER);
        assertThat(accept.credit()).isEqualTo(256 * 1024);

        Relay refuse = roundTrip(open.refuse(2, "no virtual port 65535 \u00e9"));
        assertThat(refuse.answerCode()).isEqualTo(2);
        assertThat(refuse.reason()).isEqualTo("no virtual port 65535 \u00e9");
    }

    @Test
    void aSealedOpenItsAcceptAndSealedBytesRoundTripAndAHubsCreditChangeKeepsTheAgreement() throws Exception {
        byte[] offer = {1, 2, 3, 4, 5};
        Relay open = roundTrip(Relay.open(9, OPENER, ACCEPTOR, 80, 1 << 20, true, offer));
        assertThat(open.holdUntilConfirmed()).isTrue();
        assertThat(open.sealOffer()).isEqualTo(offer);
        assertThat(open.credit()).isEqualTo(1 << 20);
        assertThat(roundTrip(Relay.open(9, OPENER, ACCEPTOR, 80, 1 << 20, false, offer))
                        .holdUntilConfirmed())
                .isFalse();
        assertThat(roundTrip(Relay.open(9, OPENER, ACCEPTOR, 80, 1 << 20, true)).sealOffer())
                .isNull();
        Relay lessCredit = open.withCredit(4096);
        assertThat(lessCredit.credit()).isEqualTo(4096);
        assertThat(lessCredit.sealOffer()).isEqualTo(offer);

        byte[] answer = {9, 8, 7};
        Relay accept = roundTrip(open.accept(65536, answer));
        assertThat(accept.sealAnswer()).isEqualTo(answer);
        assertThat(accept.withCredit(1024).sealAnswer()).isEqualTo(answer);
        assertThat(roundTrip(open.accept(65536)).sealAnswer()).isEmpty();

        byte[] sealed = new byte[Relay.MAX_SEALED_BYTES + Relay.SEAL_OVERHEAD];
        sealed[sealed.length - 1] = 3;
        io.netty.buffer.ByteBuf payload =
                io.netty.buffer.Unpooled.buffer().writeLong(4096).writeBytes(sealed);
        Relay frame = roundTrip(Relay.sealedFrame(9, OPENER, ACCEPTOR, RelayDirection.TOWARD_OPENER, payload));
        assertThat(frame.kind()).isEqualTo(RelayKind.SEALED);
        assertThat(frame.streamOffset()).isEqualTo(4096);
        assertThat(frame.streamBytes()).isEqualTo(Relay.MAX_SEALED_BYTES);
        assertThat(io.netty.buffer.ByteBufUtil.getBytes(frame.dataBytes())).isEqualTo(sealed);
    }

    @Test
    void streamFramesRoundTripInBothDirections() throws Exception {
        for (RelayDirection direction : RelayDirection.values()) {
            byte[] bytes = new byte[Relay.MAX_DATA_BYTES];
            bytes[0] = 1;
            bytes[bytes.length - 1] = 2;
            Relay data = roundTrip(Relay.data(7, OPENER, ACCEPTOR, direction, Long.MAX_VALUE - bytes.length, bytes));
            assertThat(io.netty.buffer.ByteBufUtil.getBytes(data.dataBytes())).isEqualTo(bytes);
            assertThat(data.streamOffset()).isEqualTo(Long.MAX_VALUE - bytes.length);
            assertThat(roundTrip(Relay.credit(7, OPENER, ACCEPTOR, direction, 1L << 40))
                            .credit())
                    .isEqualTo(1L << 40);
            assertThat(roundTrip(Relay.fin(7, OPENER, ACCEPTOR, direction, 12345))
                            .streamOffset())
                    .isEqualTo(12345);
            Relay ping = roundTrip(Relay.ping(7, OPENER, ACCEPTOR, direction));
            Relay pong = roundTrip(ping.pong(99));
            assertThat(pong.direction()).isEqualTo(direction.reversed());
            assertThat(pong.credit()).isEqualTo(99);
        }
    }

    @Test
    void aHubPassesOnLessCreditWithEveryOtherFieldKept() throws Exception {
        Relay open = Relay.open(7, OPENER, ACCEPTOR, 8080, 0xFFFF_FFFFL, true).forwarded();
        Relay less = roundTrip(open.withCredit(1 << 20));
        assertThat(less.credit()).isEqualTo(1 << 20);
        assertThat(less.virtualPort()).isEqualTo(8080);
        assertThat(less.holdUntilConfirmed()).isTrue();
        assertThat(less.hopsLeft()).isEqualTo(open.hopsLeft());
        assertThat(open.refCnt()).as("the original's reference is given up").isZero();
        less.release();

        Relay accept = Relay.open(7, OPENER, ACCEPTOR, 80, 1).accept(5_000_000);
        assertThat(roundTrip(accept.withCredit(4_000_000)).credit()).isEqualTo(4_000_000);
        Relay credit = Relay.credit(7, OPENER, ACCEPTOR, RelayDirection.TOWARD_OPENER, 1L << 40);
        Relay passed = roundTrip(credit.withCredit(1L << 33));
        assertThat(passed.credit()).isEqualTo(1L << 33);
        assertThat(passed.direction()).isEqualTo(RelayDirection.TOWARD_OPENER);
        Relay pong =
                Relay.ping(7, OPENER, ACCEPTOR, RelayDirection.TOWARD_ACCEPTOR).pong(99);
        assertThat(roundTrip(pong.withCredit(42)).credit()).isEqualTo(42);
        Relay data = Relay.data(7, OPENER, ACCEPTOR, RelayDirection.TOWARD_OPENER, 0, new byte[3]);
        assertThatThrownBy(() -> data.withCredit(1)).isInstanceOf(IllegalStateException.class);
        data.release();
    }

    @Test
    void aHubResetGoesBackToTheSenderOfTheFrame() {
        Relay data = Relay.data(3, OPENER, ACCEPTOR, RelayDirection.TOWARD_OPENER, 0, new byte[10])
                .forwarded();
        Relay reset = data.resetToSender("x".repeat(5000));
        assertThat(reset.kind()).isEqualTo(RelayKind.RESET);
        assertThat(reset.destination()).isEqualTo(ACCEPTOR);
        assertThat(reset.connectionId()).isEqualTo(3);
        assertThat(reset.hopsLeft()).isEqualTo(LinkLimits.DEFAULT_RELAY_HOPS);
        assertThat(reset.payloadLength()).isLessThanOrEqualTo(LinkLimits.MAX_REASON);
        assertThat(reset.reason()).endsWith("...");
    }

    @Test
    void forwardingCountsHopsDownToZero() {
        Relay last = new Relay(1, OPENER, ACCEPTOR, RelayDirection.TOWARD_ACCEPTOR, 1, RelayKind.PING, new byte[0])
                .forwarded();
        assertThat(last.hopsLeft()).isZero();
        assertThatThrownBy(last::forwarded).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void recordsRefusePayloadsThatDoNotFitTheirKind() {
        assertThatThrownBy(() -> Relay.open(1, OPENER, ACCEPTOR, 0, 1)).hasMessageContaining("virtual port");
        assertThatThrownBy(() -> frame(RelayDirection.TOWARD_OPENER, RelayKind.OPEN, new byte[] {0, 1, 0, 0, 0, 1}))
                .hasMessageContaining("OPEN travels TOWARD_ACCEPTOR");
        assertThatThrownBy(() -> frame(RelayDirection.TOWARD_ACCEPTOR, RelayKind.ACCEPT, new byte[4]))
                .hasMessageContaining("ACCEPT travels TOWARD_OPENER");
        assertThatThrownBy(() -> frame(RelayDirection.TOWARD_ACCEPTOR, RelayKind.DATA, new byte[8]))
                .hasMessageContaining("DATA without bytes");
        assertThatThrownBy(() -> frame(
                        RelayDirection.TOWARD_ACCEPTOR, RelayKind.DATA, new byte[LinkLimits.MAX_RELAY_PAYLOAD + 1]))
                .hasMessageContaining("payload");
        assertThatThrownBy(() ->
                        frame(RelayDirection.TOWARD_ACCEPTOR, RelayKind.CREDIT, new byte[] {-1, 0, 0, 0, 0, 0, 0, 0}))
                .hasMessageContaining("beyond 2^63-1");
        assertThatThrownBy(() -> frame(RelayDirection.TOWARD_ACCEPTOR, RelayKind.FIN, new byte[1]))
                .hasMessageContaining("FIN payload");
        assertThatThrownBy(() ->
                        frame(RelayDirection.TOWARD_ACCEPTOR, RelayKind.RESET, new byte[LinkLimits.MAX_REASON + 1]))
                .hasMessageContaining("reason");
        assertThatThrownBy(() ->
                        new Relay(1, OPENER, ACCEPTOR, RelayDirection.TOWARD_ACCEPTOR, 256, RelayKind.FIN, new byte[0]))
                .hasMessageContaining("hops left");
    }

    @Test
    void malformedFramesAreProtocolErrors() {
        // A payload length that claims more than the frame holds: refused before anything is allocated.
        assertProtocolError(
                raw(0, 0, RelayKind.DATA.code(), w -> w.u32(0xFFFF).fixedBytes(new byte[10])), "truncated payload");
        assertProtocolError(
                raw(0, 0, RelayKind.DATA.code(), w -> w.u32(0xFFFF_FFFFL)),
                "exceeds the maximum of " + LinkLimits.MAX_RELAY_PAYLOAD);
        // The OPEN payload must be exactly port and credit, and optionally flags with bits 0 and 1
        // only; bit 1 (sealed) needs the key agreement's offer after them, and nothing else may follow.
        assertProtocolError(
                raw(0, 0, RelayKind.OPEN.code(), w -> w.u32(7).fixedBytes(new byte[] {0, 1, 0, 0, 0, 0, 4})),
                "OPEN flags 4");
        assertProtocolError(
                raw(0, 0, RelayKind.OPEN.code(), w -> w.u32(7).fixedBytes(new byte[] {0, 1, 0, 0, 0, 0, 2})),
                "a sealed OPEN without the key agreement's offer");
        assertProtocolError(
                raw(0, 0, RelayKind.SEALED.code(), w -> w.u32(24).fixedBytes(new byte[24])), "SEALED without bytes");
        assertProtocolError(
                raw(0, 0, RelayKind.OPEN.code(), w -> w.u32(8).fixedBytes(new byte[] {0, 1, 0, 0, 0, 0, 1, 0})),
                "OPEN payload");
        assertProtocolError(raw(1, 0, RelayKind.CONFIRM.code(), w -> w.u32(0)), "CONFIRM travels TOWARD_ACCEPTOR");
        assertProtocolError(raw(0, 0, RelayKind.CONFIRM.code(), w -> w.u32(1).u8(0)), "CONFIRM payload");
        assertProtocolError(
                raw(0, 0, RelayKind.OPEN.code(), w -> w.u32(5).fixedBytes(new byte[] {0, 1, 0, 0, 0})), "OPEN payload");
        assertProtocolError(raw(0, 0, RelayKind.OPEN.code(), w -> w.u32(6).fixedBytes(new byte[6])), "virtual port 0");
        assertProtocolError(
                raw(1, 0, RelayKind.ACCEPT.code(), w -> w.u32(3).fixedBytes(new byte[3])), "ACCEPT payload");
        assertProtocolError(
                raw(0, 0, RelayKind.CREDIT.code(), w -> w.u32(4).fixedBytes(new byte[4])), "CREDIT payload");
        assertProtocolError(
                raw(0, 0, RelayKind.RESET.code(), w -> w.u32(2).fixedBytes(new byte[] {(byte) 0xC3, 0x28})), "UTF-8");
        assertProtocolError(
                raw(0, 0, RelayKind.RESET.code(), w -> w.u32(1025).fixedBytes(new byte[1025])), "exceeds 1024");
        assertProtocolError(
                raw(2, 0, RelayKind.FIN.code(), w -> w.u32(8).fixedBytes(new byte[8])), "RelayDirection code 2");
        assertProtocolError(raw(0, 0, 12, w -> w.u32(0)), "RelayKind code 12");
        assertProtocolError(raw(1, 0, RelayKind.REFUSE.code(), w -> w.u32(0)), "REFUSE without an answer code");
        assertProtocolError(raw(0, 0, RelayKind.PING.code(), w -> w.u32(1).u8(0)), "PING payload");
        assertProtocolError(raw(0, 0, RelayKind.PING.code(), w -> w.u32(0).u8(0)), "trailing");
        byte[] truncatedHeader = {(byte) LinkMessageType.RELAY.code(), 0, 0, 0, 0, 0, 0, 0, 1, 40};
        assertProtocolError(truncatedHeader, "truncated opener");
    }

    @Test
    void theZeroCopyEncoderWritesTheCodecsBytesAndPassesThePayloadBufferOn() throws ProtocolException {
        byte[] bytes = new byte[40_000];
        new java.util.Random(5).nextBytes(bytes);
        bytes[0] = 0; // the stream offset's top byte: offsets are below 2^63
        ByteBuf payload = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
        Relay data = Relay.dataFrame(42, OPENER, ACCEPTOR, RelayDirection.TOWARD_OPENER, payload);
        byte[] expected = frameBytes(LinkMessageEncoder.frame(data, io.netty.buffer.UnpooledByteBufAllocator.DEFAULT));

        EmbeddedChannel channel = new EmbeddedChannel(LinkMessageEncoder.INSTANCE, RelayEncoder.INSTANCE);
        assertThat(channel.writeOutbound(data)).isTrue();
        ByteBuf header = channel.readOutbound();
        ByteBuf body = channel.readOutbound();
        // Netty's sampled leak detector may wrap either buffer: compare what lies under the wrappers.
        assertThat(body.unwrap() == null ? body : body.unwrap())
                .isSameAs(payload.unwrap() == null ? payload : payload.unwrap());
        byte[] written = new byte[header.readableBytes() + body.readableBytes()];
        header.readBytes(written, 0, header.readableBytes());
        body.readBytes(written, written.length - body.readableBytes(), body.readableBytes());
        header.release();
        body.release();
        assertThat(written).isEqualTo(expected);
        assertThat(payload.refCnt()).isZero();

        // Decoding slices the frame: the payload shares the frame's memory until released.
        ByteBuf frame = Unpooled.wrappedBuffer(
                expected, LinkFrameDecoder.LENGTH_FIELD, expected.length - LinkFrameDecoder.LENGTH_FIELD);
        Relay decoded = (Relay) LinkMessageCodec.decode(frame);
        frame.release();
        assertThat(decoded.payloadBytes()).isEqualTo(bytes);
        assertThat(frame.refCnt()).isEqualTo(1);
        decoded.release();
        assertThat(frame.refCnt()).isZero();
    }

    private static byte[] frameBytes(ByteBuf buf) {
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        buf.release();
        return out;
    }

    private static Relay frame(RelayDirection direction, RelayKind kind, byte[] payload) {
        return new Relay(1, OPENER, ACCEPTOR, direction, 3, kind, payload);
    }

    private static Relay roundTrip(Relay message) throws ProtocolException {
        Relay decoded = (Relay) LinkMessageCodec.decode(LinkMessageCodec.encodeToBytes(message));
        assertThat(decoded).isEqualTo(message);
        return decoded;
    }

    /** A RELAY frame with valid ids and the given direction, kind and payload written by {@code rest}. */
    private static byte[] raw(int direction, int hops, int kind, Consumer<WireWriter> rest) {
        ByteBuf buf = Unpooled.buffer();
        WireWriter w = new WireWriter(buf);
        w.u8(LinkMessageType.RELAY.code())
                .u64(9)
                .nodeId(OPENER)
                .nodeId(ACCEPTOR)
                .u8(direction)
                .u8(hops)
                .u8(kind);
        rest.accept(w);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }

    private static void assertProtocolError(byte[] frame, String reasonPart) {
        assertThatThrownBy(() -> LinkMessageCodec.decode(frame))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining(reasonPart);
    }
}
