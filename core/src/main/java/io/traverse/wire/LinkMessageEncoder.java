package io.traverse.wire;

import io.netty.buffer.ByteBuf;
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

    @Override
    protected void encode(ChannelHandlerContext ctx, LinkMessage message, ByteBuf out) {
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
