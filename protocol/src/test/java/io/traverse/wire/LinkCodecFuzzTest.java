package io.traverse.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.traverse.identity.RandomIdentities;
import io.traverse.protocol.ProtocolException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Untrusted bytes: whatever arrives, decoding yields a valid message or fails with a
 * {@link ProtocolException} (in the pipeline: a {@link DecoderException}, whose cause says why).
 * Never another exception type, never an allocation sized by a declared length. Seeded:
 * {@code -DtestSeed=N} reruns a failure.
 */
class LinkCodecFuzzTest {
    private static final int CASES = 20_000;

    @Test
    void randomFramesFailOnlyWithProtocolException() {
        for (int n = 0; n < CASES; n++) {
            Random r = RandomIdentities.forCase(n);
            byte[] frame = RandomLinkMessages.bytes(r, r.nextInt(r.nextBoolean() ? 12 : 600));
            if (frame.length > 0 && r.nextBoolean()) {
                // A known type so that the body decoders get exercised, not just the type check.
                LinkMessageType[] types = LinkMessageType.values();
                frame[0] = (byte) types[r.nextInt(types.length)].code();
            }
            decodeExpectingValidOrProtocolException(frame, n, "random");
        }
    }

    @Test
    void mutatedValidFramesFailOnlyWithProtocolException() {
        for (int n = 0; n < CASES; n++) {
            Random r = RandomIdentities.forCase(n);
            byte[] valid = LinkMessageCodec.encodeToBytes(RandomLinkMessages.any(r));
            decodeExpectingValidOrProtocolException(mutate(valid, r), n, "mutated");
        }
    }

    @Test
    void everyTruncationOfAValidFrameIsAProtocolError() {
        // Every cut of every message type, 50 random fillings each (about 150,000 decodes, each thrown
        // with a stack trace); the Jazzer target LinkFrameFuzzer goes further by coverage.
        for (int n = 0; n < 50; n++) {
            Random r = RandomIdentities.forCase(n);
            for (LinkMessage message : RandomLinkMessages.oneOfEach(r)) {
                byte[] valid = LinkMessageCodec.encodeToBytes(message);
                for (int length = 0; length < valid.length; length++) {
                    try {
                        LinkMessageCodec.decode(Arrays.copyOf(valid, length));
                        fail("%s cut to %d bytes decoded, %s", message.type(), length, RandomIdentities.describe(n));
                    } catch (ProtocolException expected) {
                        // the only outcome allowed; any other exception fails the test as it is
                    }
                }
            }
        }
    }

    @Test
    void trailingBytesAreAProtocolError() {
        for (int n = 0; n < 300; n++) {
            Random r = RandomIdentities.forCase(n);
            for (LinkMessage message : RandomLinkMessages.oneOfEach(r)) {
                byte[] valid = LinkMessageCodec.encodeToBytes(message);
                byte[] longer = Arrays.copyOf(valid, valid.length + 1 + r.nextInt(8));
                assertThatThrownBy(() -> LinkMessageCodec.decode(longer))
                        .as(RandomIdentities.describe(n))
                        .isInstanceOf(ProtocolException.class)
                        .hasMessageContaining("trailing bytes after " + message.type());
            }
        }
    }

    @Test
    void listCountsThatCannotFitAreRefusedBeforeAllocating() {
        // LOOKUP_RESULT with 65,535 entries declared in a 10-byte frame.
        byte[] frame = {(byte) LinkMessageType.LOOKUP_RESULT.code(), 0, 0, 0, 1, 0, (byte) 0xFF, (byte) 0xFF, 0, 0};
        assertThatThrownBy(() -> LinkMessageCodec.decode(frame))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("cannot fit");
    }

    @Test
    void unknownTypesAndEmptyFramesAreProtocolErrors() {
        assertThatThrownBy(() -> LinkMessageCodec.decode(new byte[0]))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("empty frame");
        assertThatThrownBy(() -> LinkMessageCodec.decode(new byte[] {99}))
                .isInstanceOf(ProtocolException.class)
                .hasMessage("unknown frame type 99");
    }

    @Test
    void wrongMagicIsRefusedAndOtherVersionsAreReportedNotGuessed() throws Exception {
        ByteBuf bad = Unpooled.buffer().writeInt(0x48545450).writeShort(1).writeShort(1); // "HTTP"
        assertThatThrownBy(() -> LinkPreamble.decode(bad))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("not a Traverse hub link: magic 0x48545450");
        LinkPreamble future = LinkPreamble.decode(Unpooled.buffer()
                .writeInt(LinkPreamble.MAGIC)
                .writeShort(LinkPreamble.VERSION + 1)
                .writeShort(2));
        assertThat(future.version()).isEqualTo(LinkPreamble.VERSION + 1);
        assertThat(future.isSupported()).isFalse();
        LinkPreamble clear = LinkPreamble.decode(
                Unpooled.buffer().writeInt(LinkPreamble.MAGIC).writeShort(1).writeShort(1));
        assertThat(clear.isSupported()).as("version 1 ran links in clear").isFalse();
        assertThatThrownBy(() -> LinkPreamble.decode(Unpooled.buffer()
                        .writeInt(LinkPreamble.MAGIC)
                        .writeShort(1)
                        .writeShort(9)))
                .isInstanceOf(ProtocolException.class)
                .hasMessageContaining("unknown link role 9");
        EmbeddedChannel channel = codecChannel();
        assertThatThrownBy(() -> channel.writeInbound(Unpooled.wrappedBuffer("GET / HTTP/1.1\r\n".getBytes())))
                .isInstanceOf(DecoderException.class)
                .hasCauseInstanceOf(ProtocolException.class);
        channel.finishAndReleaseAll();
    }

    @Test
    void hugeDeclaredLengthsFailFastWithoutBuffering() {
        long[] lengths = {LinkLimits.MAX_FRAME_BEFORE_AUTH + 1L, 1L << 20, 0x7FFFFFFFL, 0xFFFFFFFFL};
        for (long length : lengths) {
            EmbeddedChannel channel = codecChannel();
            channel.writeInbound(Unpooled.wrappedBuffer(preamble()));
            assertThat(channel.<Object>readInbound()).isInstanceOf(LinkPreamble.class);
            ByteBuf header = Unpooled.buffer().writeInt((int) length).writeByte(LinkMessageType.GOSSIP.code());
            assertThatThrownBy(() -> channel.writeInbound(header))
                    .as("length %d", length)
                    .isInstanceOf(DecoderException.class);
            channel.finishAndReleaseAll();
        }
        // After authentication the limit is 1 MiB, not more.
        EmbeddedChannel channel = codecChannel();
        channel.writeInbound(Unpooled.wrappedBuffer(preamble()));
        assertThat(channel.<Object>readInbound()).isInstanceOf(LinkPreamble.class);
        LinkPipeline.authenticated(channel.pipeline());
        ByteBuf header =
                Unpooled.buffer().writeInt(LinkLimits.MAX_FRAME_AFTER_AUTH + 1).writeByte(1);
        assertThatThrownBy(() -> channel.writeInbound(header)).isInstanceOf(TooLongFrameException.class);
        channel.finishAndReleaseAll();
    }

    @Test
    void randomStreamsThroughThePipelineFailOnlyWithDecoderExceptions() {
        for (int n = 0; n < CASES / 4; n++) {
            Random r = RandomIdentities.forCase(n);
            ByteBuf stream = Unpooled.buffer();
            if (r.nextInt(4) != 0) {
                stream.writeBytes(preamble());
            }
            int pieces = 1 + r.nextInt(4);
            for (int i = 0; i < pieces; i++) {
                switch (r.nextInt(4)) {
                    case 0 -> stream.writeBytes(RandomLinkMessages.bytes(r, r.nextInt(64)));
                    case 1 -> stream.writeInt(r.nextInt()).writeBytes(RandomLinkMessages.bytes(r, r.nextInt(32)));
                    default -> {
                        byte[] body = mutate(LinkMessageCodec.encodeToBytes(RandomLinkMessages.any(r)), r);
                        stream.writeInt(r.nextInt(8) == 0 ? r.nextInt() : body.length)
                                .writeBytes(body);
                    }
                }
            }
            EmbeddedChannel channel = codecChannel();
            try {
                while (stream.isReadable()) {
                    int chunk = Math.min(stream.readableBytes(), 1 + r.nextInt(200));
                    channel.writeInbound(stream.readRetainedSlice(chunk));
                }
                for (Object m; (m = channel.readInbound()) != null; ) {
                    assertThat(m).isInstanceOfAny(LinkPreamble.class, LinkMessage.class);
                }
            } catch (DecoderException expected) {
                Throwable cause = expected instanceof TooLongFrameException || expected.getCause() == null
                        ? expected
                        : expected.getCause();
                assertThat(cause)
                        .as(RandomIdentities.describe(n))
                        .isInstanceOfAny(
                                ProtocolException.class,
                                TooLongFrameException.class,
                                io.netty.handler.codec.CorruptedFrameException.class);
                assertThat(cause.getMessage()).isNotBlank();
            } catch (RuntimeException | Error escaped) {
                fail(RandomIdentities.describe(n) + ": " + escaped + " escaped the pipeline", escaped);
            } finally {
                stream.release();
                channel.finishAndReleaseAll();
            }
        }
    }

    private static void decodeExpectingValidOrProtocolException(byte[] frame, int n, String what) {
        try {
            LinkMessage decoded = LinkMessageCodec.decode(frame);
            // What decodes must be a message that re-encodes to the same bytes.
            assertThat(LinkMessageCodec.encodeToBytes(decoded))
                    .as(RandomIdentities.describe(n))
                    .isEqualTo(frame);
        } catch (ProtocolException expected) {
            assertThat(expected.getMessage()).as(RandomIdentities.describe(n)).isNotBlank();
        } catch (RuntimeException | Error escaped) {
            fail(
                    RandomIdentities.describe(n) + ": " + what + " frame "
                            + HexFormat.of().formatHex(frame) + " escaped with " + escaped,
                    escaped);
        }
    }

    private static byte[] mutate(byte[] valid, Random r) {
        byte[] bytes = valid.clone();
        int edits = 1 + r.nextInt(3);
        for (int i = 0; i < edits; i++) {
            switch (r.nextInt(4)) {
                case 0 -> {
                    if (bytes.length > 0) {
                        bytes[r.nextInt(bytes.length)] = (byte) r.nextInt(256);
                    }
                }
                case 1 -> bytes = Arrays.copyOf(bytes, r.nextInt(bytes.length + 1));
                case 2 -> {
                    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1 + r.nextInt(4));
                    for (int j = bytes.length; j < longer.length; j++) {
                        longer[j] = (byte) r.nextInt(256);
                    }
                    bytes = longer;
                }
                default -> {
                    if (bytes.length > 2) {
                        int at = r.nextInt(bytes.length - 1);
                        bytes[at] = (byte) (r.nextBoolean() ? 0xFF : 0);
                        bytes[at + 1] = (byte) (r.nextBoolean() ? 0xFF : 0);
                    }
                }
            }
        }
        return bytes;
    }

    private static EmbeddedChannel codecChannel() {
        EmbeddedChannel channel = new EmbeddedChannel();
        LinkPipeline.installCodec(channel.pipeline());
        return channel;
    }

    private static byte[] preamble() {
        ByteBuf buf = Unpooled.buffer();
        LinkPreamble.current(LinkRole.NODE).encode(buf);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        return bytes;
    }
}
