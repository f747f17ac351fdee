package io.traverse.hub.link;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Predicate;

/**
 * First on every accepted connection: a link starts with the preamble's magic {@code TRVL}, an
 * HTTP request with its method. The first four bytes decide; an HTTP request switches the
 * connection to the long-poll endpoint, anything else goes on to the link handshake untouched.
 */
final class HttpSniffer extends ByteToMessageDecoder {
    private static final String[] METHODS = {"GET ", "POST", "DELE", "PUT ", "HEAD", "OPTI", "PATC", "CONN", "TRAC"};
    private final Predicate<ChannelPipeline> toHttp;

    /** @param toHttp switches the pipeline to HTTP; false when nobody serves HTTP here */
    HttpSniffer(Predicate<ChannelPipeline> toHttp) {
        this.toHttp = toHttp;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.readableBytes() < 4) {
            return;
        }
        String first = in.toString(in.readerIndex(), 4, StandardCharsets.US_ASCII);
        for (String method : METHODS) {
            if (method.equals(first)) {
                if (!toHttp.test(ctx.pipeline())) {
                    in.skipBytes(in.readableBytes());
                    ctx.close();
                    return;
                }
                break;
            }
        }
        ctx.pipeline().remove(this); // hands the bytes read so far to the next handler
    }
}
