package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.EncoderException;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * {@link LinkMessage}s to length-prefixed frames. Other outbound messages (the preamble's
 * {@link ByteBuf}) pass through untouched. A message over {@link LinkLimits#MAX_FRAME_AFTER_AUTH}
 * fails its write with an {@link EncoderException}; nothing is sent for it.
 */
@Sharable
public final class LinkMessageEncoder extends MessageToByteEncoder<LinkMessage> {
    public static final LinkMessageEncoder INSTANCE = new LinkMessageEncoder();

    private LinkMessageEncoder() {
        super(LinkMessage.class);
    }

    /**
     * A message as a whole frame, encoded once: a hub sends the same gossip to many links, each
     * gets a {@link ByteBuf#retainedDuplicate()} (which this encoder passes through untouched).
     *
     * @throws EncoderException if the message is over the frame maximum
     */
    public static ByteBuf frame(LinkMessage message, ByteBufAllocator allocator) {
        ByteBuf out = allocator.buffer();
        try {
            writeFrame(message, out);
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, LinkMessage message, ByteBuf out) {
        writeFrame(message, out);
    }

    private static void writeFrame(LinkMessage message, ByteBuf out) {
        int lengthAt = out.writerIndex();
        out.writeInt(0);
        LinkMessageCodec.encode(message, out);
        int body = out.writerIndex() - lengthAt - LinkFrameDecoder.LENGTH_FIELD;
        if (body > LinkLimits.MAX_FRAME_AFTER_AUTH) {
            out.writerIndex(lengthAt);
            throw new EncoderException(message.type() + " of " + body + " bytes exceeds the frame maximum of "
                    + LinkLimits.MAX_FRAME_AFTER_AUTH);
        }
        out.setInt(lengthAt, body);
    }
}
