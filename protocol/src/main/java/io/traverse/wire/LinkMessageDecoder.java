package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.util.List;

/**
 * Frames to {@link LinkMessage}s. A malformed frame fails with a
 * {@link io.traverse.protocol.ProtocolException} (wrapped by Netty in a
 * {@link io.netty.handler.codec.DecoderException}); what to do about it is the link handler's call.
 */
@Sharable
public final class LinkMessageDecoder extends MessageToMessageDecoder<ByteBuf> {
    public static final LinkMessageDecoder INSTANCE = new LinkMessageDecoder();

    private LinkMessageDecoder() {
        super(ByteBuf.class);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) throws Exception {
        out.add(LinkMessageCodec.decode(frame));
    }
}
