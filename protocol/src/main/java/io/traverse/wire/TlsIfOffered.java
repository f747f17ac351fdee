package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import java.util.function.Supplier;

/**
 * The acceptor's look at the first byte after the dialler's preamble, on a link that may run TLS
 * or not: a TLS handshake record (0x16) puts TLS in this handler's place, anything else (a frame's
 * length starts with 0) leaves the link in clear. Then this handler is gone either way.
 */
final class TlsIfOffered extends ChannelInboundHandlerAdapter {
    private static final int HANDSHAKE_RECORD = 0x16;

    private final Supplier<SslHandler> tls;

    TlsIfOffered(Supplier<SslHandler> tls) {
        this.tls = tls;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf bytes) {
            if (!bytes.isReadable()) {
                bytes.release();
                return;
            }
            if (bytes.getUnsignedByte(bytes.readerIndex()) == HANDSHAKE_RECORD) {
                // replace() hands what comes next, this buffer included, to TLS
                ctx.pipeline().replace(this, LinkPipeline.TLS, tls.get());
            } else {
                ctx.pipeline().remove(this);
            }
        }
        ctx.fireChannelRead(msg);
    }
}
