package io.traverse.hub.link;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import io.traverse.wire.Relay;
import io.traverse.wire.SideMessage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Last handler of an authenticated link: relays RELAY frames and side messages at once when their
 * next link is known, and hands every other message to the hub's state loop. At most {@code maxQueued}
 * messages of one link wait there; beyond that the link stops reading until half of them are done, so a flooding peer slows itself down and nobody else.
 */
final class LinkInbound extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(LinkInbound.class);

    private final Link link;
    private final LinkEvents events;
    private final EventExecutor stateLoop;
    private final int maxQueued;
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicBoolean heldForQueue = new AtomicBoolean();

    LinkInbound(Link link, LinkEvents events, EventExecutor stateLoop, int maxQueued) {
        this.link = link;
        this.events = events;
        this.stateLoop = stateLoop;
        this.maxQueued = maxQueued;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Reject reject) {
            log.info("{} closes the link: {} {}", link, reject.code(), reject.reason());
            ctx.close();
            return;
        }
        if (!(msg instanceof LinkMessage message)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        // Nothing of this link waits at the state loop: a side message may overtake nothing by going at once.
        if (message instanceof SideMessage side && queued.get() == 0 && events.sideMessageSentAtOnce(link, side)) {
            return;
        }
        boolean relay = message instanceof Relay;
        if (relay) {
            if (!link.relayFramesPending() && events.relayedAtOnce(link, (Relay) message)) {
                return;
            }
            link.relayFrameHandedOver();
        }
        if (queued.incrementAndGet() >= maxQueued && heldForQueue.compareAndSet(false, true)) {
            link.holdReading();
        }
        stateLoop.execute(() -> {
            try {
                events.received(link, message);
            } catch (RuntimeException e) {
                log.error("Closing {}: handling {} failed", link, message.type(), e);
                link.close(RejectCode.PROTOCOL, "the hub could not handle " + message.type());
            } finally {
                if (relay) {
                    // Queued after the frame's own sending, which the state loop hands back to this link's loop.
                    link.execute(link::relayFrameDone);
                }
                if (queued.decrementAndGet() <= maxQueued / 2 && heldForQueue.compareAndSet(true, false)) {
                    link.releaseReadHold();
                }
            }
        });
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            link.wakeWritableWaiters();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        link.wakeWritableWaiters();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LinkFailures.closeOnError(ctx, cause, link.toString(), true);
    }
}
