package io.traverse.hub.link;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.traverse.wire.GossipDigest;
import io.traverse.wire.LinkFrameDecoder;
import io.traverse.wire.LinkMessageCodec;
import io.traverse.wire.LinkMessageType;

/**
 * On a hub link, between the frame decoder and the message decoder: drops a GOSSIP frame whose
 * hub id and state number say it is no news, without decoding the description. While a dense
 * network forms, about half the descriptions a hub receives are copies of ones it already holds.
 * It also counts the bytes of every gossip frame (descriptions, digests and summaries) for the metrics.
 */
final class StaleGossipFilter extends ChannelInboundHandlerAdapter {
    private final LinkEvents events;
    private final Keepalive keepalive;

    StaleGossipFilter(LinkEvents events, Keepalive keepalive) {
        this.events = events;
        this.keepalive = keepalive;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf frame) {
            if (frame.readableBytes() > 0) {
                int type = frame.getUnsignedByte(frame.readerIndex());
                if (type == LinkMessageType.GOSSIP.code()
                        || type == LinkMessageType.GOSSIP_DIGEST.code()
                        || type == LinkMessageType.GOSSIP_SUMMARY.code()) {
                    events.gossipFrameArrived(LinkFrameDecoder.LENGTH_FIELD + frame.readableBytes());
                }
            }
            GossipDigest.Entry header = LinkMessageCodec.peekGossip(frame);
            if (header != null && events.isStaleGossip(header.hubId(), header.stateNumber())) {
                keepalive.frameArrived(); // dropped, but the peer is alive: it counts as much as a PING
                frame.release();
                return;
            }
        }
        ctx.fireChannelRead(msg);
    }
}
