package io.traverse.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.util.ReferenceCountUtil;
import io.traverse.protocol.ProtocolException;

/**
 * Coverage-guided fuzzing of one frame body (type byte and payload, as {@link LinkFrameDecoder}
 * hands it on): whatever the bytes, {@link LinkMessageCodec#decode} yields a message or throws
 * {@link ProtocolException}, and a decoded message encodes to a frame that decodes to the same
 * message. Seeds: one frame of each type, in {@code LinkFrameFuzzerInputs/frameBody/}.
 */
class LinkFrameFuzzer {
    @FuzzTest(maxDuration = "10m")
    void frameBody(byte[] frame) {
        LinkMessage message;
        try {
            message = LinkMessageCodec.decode(frame);
        } catch (ProtocolException e) {
            assertThat(e.getMessage()).isNotBlank();
            return;
        }
        try {
            byte[] encoded = LinkMessageCodec.encodeToBytes(message);
            LinkMessage again = decodeValid(encoded);
            try {
                assertThat(again.type()).isEqualTo(message.type());
                assertThat(LinkMessageCodec.encodeToBytes(again))
                        .as("%s encodes as it decoded", message.type())
                        .isEqualTo(encoded);
            } finally {
                ReferenceCountUtil.release(again);
            }
        } finally {
            ReferenceCountUtil.release(message);
        }
    }

    private static LinkMessage decodeValid(byte[] encoded) {
        try {
            return LinkMessageCodec.decode(encoded);
        } catch (ProtocolException e) {
            return fail("an encoded message does not decode: " + e.getMessage(), e);
        }
    }
}
