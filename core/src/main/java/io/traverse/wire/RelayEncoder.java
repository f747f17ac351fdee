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
        ByteBuf header = ctx.alloc().buffer(96);
        header.writeInt(0);
        new WireWriter(header).u8(LinkMessageType.RELAY.code()).u64(frame.connectionId()).nodeId(frame.opener())
                .nodeId(frame.acceptor()).u8(frame.direction().code()).u8(frame.hopsLeft()).u8(frame.kind().code())
                .u32(payload.readableBytes());
        header.setInt(0, header.readableBytes() - LinkFrameDecoder.LENGTH_FIELD + payload.readableBytes());
        out.add(header);
        if (payload.isReadable()) {
            out.add(payload.retain());
        }
    }
}
