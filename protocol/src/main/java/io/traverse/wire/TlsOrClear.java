package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * The dialler's look at the first byte after the acceptor's preamble: a TLS record (handshake
 * 0x16 or alert 0x15) goes to TLS; anything else is a frame in clear (its length's first byte is
 * 0), a refusal made before TLS, so TLS is taken out and the frame decoder reads it. Then this
 * handler leaves.
 */
final class TlsOrClear extends ChannelInboundHandlerAdapter {
    private static final int HANDSHAKE_RECORD = 0x16;
    private static final int ALERT_RECORD = 0x15;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf bytes) {
            if (!bytes.isReadable()) {
                bytes.release();
                return;
            }
            int first = bytes.getUnsignedByte(bytes.readerIndex());
            if (first != HANDSHAKE_RECORD
                    && first != ALERT_RECORD
                    && ctx.pipeline().get(LinkPipeline.TLS) != null) {
                ctx.pipeline().remove(LinkPipeline.TLS);
            }
            ctx.pipeline().remove(this);
        }
        ctx.fireChannelRead(msg);
    }
}
