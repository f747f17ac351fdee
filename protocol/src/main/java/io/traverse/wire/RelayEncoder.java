package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import java.util.List;

/**
 * {@link Relay} frames to a small header buffer followed by the payload buffer itself, so that
 * relayed bytes are never copied in user space (the channel writes both with one gathering
 * write). Sits before {@link LinkMessageEncoder} on the outbound path, which then passes the
 * buffers through; the bytes are the same as that encoder would write.
 */
@Sharable
public final class RelayEncoder extends MessageToMessageEncoder<Relay> {
    public static final RelayEncoder INSTANCE = new RelayEncoder();

    private RelayEncoder() {
        super(Relay.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Relay frame, List<Object> out) {
        ByteBuf payload = frame.payload();
        out.add(header(frame, ctx.alloc().buffer(HEADER_CAPACITY)));
        if (payload.isReadable()) {
            out.add(payload.retain());
        }
    }

    /** Room enough for any RELAY frame's length prefix, type and header fields. */
    public static final int HEADER_CAPACITY = 96;

    /**
     * Writes a RELAY frame's length prefix, type and header fields (everything before the payload
     * bytes) to {@code out} and returns it.
     */
    public static ByteBuf header(Relay frame, ByteBuf out) {
        int start = out.writerIndex();
        out.writeInt(0);
        new WireWriter(out)
                .u8(LinkMessageType.RELAY.code())
                .u64(frame.connectionId())
                .nodeId(frame.opener())
                .nodeId(frame.acceptor())
                .u8(frame.direction().code())
                .u8(frame.hopsLeft())
                .u8(frame.kind().code())
                .u32(frame.payloadLength());
        out.setInt(start, out.writerIndex() - start - LinkFrameDecoder.LENGTH_FIELD + frame.payloadLength());
        return out;
    }
}
