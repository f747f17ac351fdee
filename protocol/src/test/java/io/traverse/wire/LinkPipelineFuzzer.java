package io.traverse.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.util.ReferenceCountUtil;
import io.traverse.protocol.ProtocolException;

/**
 * Coverage-guided fuzzing of a link's inbound codec as a hub or node installs it
 * ({@link LinkPipeline#installCodec}: preamble, frames, messages), fed in reads of 1-256 bytes (the
 * input's first byte says how many), the frame limit raised after the read its second byte names. Out come a {@link LinkPreamble} and then
 * {@link LinkMessage}s, or the link fails with a {@link DecoderException} that is a frame-length
 * refusal ({@link TooLongFrameException}, {@link CorruptedFrameException}) or wraps a
 * {@link ProtocolException}; nothing else.
 */
class LinkPipelineFuzzer {
    @FuzzTest(maxDuration = "10m")
    void inbound(byte[] input) {
        if (input.length < 2) {
            return;
        }
        int readSize = 1 + (input[0] & 0xff);
        int authenticateAfter = (input[1] & 0xff) % 9;
        EmbeddedChannel link = new EmbeddedChannel();
        LinkPipeline.installCodec(link.pipeline());
        int[] messages = {0};
        try {
            for (int read = 0, from = 2; from < input.length; read++, from += readSize) {
                if (read == authenticateAfter) {
                    LinkPipeline.authenticated(link.pipeline());
                }
                try {
                    link.writeInbound(Unpooled.wrappedBuffer(input, from, Math.min(readSize, input.length - from)));
                } catch (DecoderException e) {
                    if (!(e instanceof TooLongFrameException || e instanceof CorruptedFrameException)) {
                        assertThat(e.getCause()).isInstanceOf(ProtocolException.class);
                    }
                    assertThat(e.getMessage()).isNotBlank();
                    return; // the link handler closes the link: nothing after this is read
                }
                checkInbound(link, messages);
            }
        } finally {
            link.finishAndReleaseAll();
        }
    }

    /** Reads what came through: the preamble first, then only messages. */
    private static void checkInbound(EmbeddedChannel link, int[] messages) {
        for (Object message = link.readInbound(); message != null; message = link.readInbound()) {
            try {
                assertThat(message).isInstanceOf(messages[0] == 0 ? LinkPreamble.class : LinkMessage.class);
                messages[0]++;
            } finally {
                ReferenceCountUtil.release(message);
            }
        }
    }
}
