package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * First inbound handler of a link: waits for the 8-byte preamble, passes a {@link LinkPreamble}
 * on and removes itself, so that the bytes after it reach the frame decoder. A wrong magic
 * fails with a {@link io.traverse.protocol.ProtocolException} (wrapped by Netty in a
 * {@link io.netty.handler.codec.DecoderException}).
 */
public final class LinkPreambleDecoder extends ByteToMessageDecoder {
    private boolean failed;

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        if (failed) {
            // Not our protocol: whatever else arrives before the link is closed is dropped, not parsed.
            in.skipBytes(in.readableBytes());
            return;
        }
        if (in.readableBytes() < LinkPreamble.LENGTH) {
            return;
        }
        LinkPreamble preamble;
        try {
            preamble = LinkPreamble.decode(in);
        } catch (Exception e) {
            failed = true;
            in.skipBytes(in.readableBytes());
            throw e;
        }
        out.add(preamble);
        ctx.pipeline().remove(this);
    }
}
