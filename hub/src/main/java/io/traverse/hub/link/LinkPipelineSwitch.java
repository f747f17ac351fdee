package io.traverse.hub.link;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.util.concurrent.EventExecutor;
import io.traverse.wire.LinkPipeline;

/** Turns a channel whose handshake succeeded into an established link, the same way on both sides. */
final class LinkPipelineSwitch {
    static final String KEEPALIVE = "link-keepalive";
    static final String INBOUND = "link-inbound";
    static final String STALE_GOSSIP = "link-stale-gossip";

    private LinkPipelineSwitch() {}

    /** On the channel's loop: raise the frame limit and replace the handshake handler. */
    static void toEstablished(
            ChannelHandlerContext handshakeCtx,
            Link link,
            Keepalive keepalive,
            LinkEvents events,
            EventExecutor stateLoop,
            int maxQueued) {
        if (!handshakeCtx.channel().isActive() || handshakeCtx.isRemoved()) {
            return;
        }
        ChannelPipeline pipeline = handshakeCtx.pipeline();
        pipeline.addAfter(handshakeCtx.name(), KEEPALIVE, keepalive);
        pipeline.addAfter(KEEPALIVE, INBOUND, new LinkInbound(link, events, stateLoop, maxQueued));
        if (link.kind() == LinkKind.HUB) {
            pipeline.addBefore(LinkPipeline.MESSAGES, STALE_GOSSIP, new StaleGossipFilter(events, keepalive));
        }
        pipeline.remove(handshakeCtx.handler());
        // Last: replacing the frame decoder hands its buffered bytes on at once, and the frames in
        // them (the peer may send right behind its WELCOME) must find the new handlers in place.
        LinkPipeline.authenticated(pipeline);
    }

    /** On the state loop, for an admitted link: report its end there too. */
    static void reportClose(Link link, LinkEvents events, EventExecutor stateLoop) {
        link.channel().closeFuture().addListener(f -> stateLoop.execute(() -> events.closed(link)));
    }
}
