package io.traverse.hub.link;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import io.traverse.wire.Reject;
import java.util.concurrent.TimeUnit;

/**
 * Ending a link with a reason, so that the reason arrives: from now on everything the peer sends
 * is discarded unread, the REJECT is written, then our side is shut down (FIN) and the socket
 * closed once the peer closes too, or after a second. Closing at once would make the kernel
 * answer the peer's unread bytes with a reset, which can destroy the REJECT before it is read;
 * and a peer that does not read at all cannot hold the link open longer than that second.
 */
final class LinkClosing {
    static final long LINGER_MILLIS = 1000;
    private static final String DISCARD = "link-discard";
    /** Where a channel reports the REJECTs sent on it (set when the channel is made). */
    static final io.netty.util.AttributeKey<java.util.function.Consumer<io.traverse.wire.RejectCode>> REJECTS_SENT =
            io.netty.util.AttributeKey.valueOf("traverse-rejects-sent");

    private LinkClosing() {}

    static void rejectAndClose(Channel channel, Reject reject) {
        if (!channel.isActive() || channel.pipeline().get(DISCARD) != null) {
            return;
        }
        java.util.function.Consumer<io.traverse.wire.RejectCode> counter =
                channel.attr(REJECTS_SENT).get();
        if (counter != null) {
            counter.accept(reject.code());
        }
        writeAndClose(channel, reject);
    }

    /**
     * Writes a last message (a REJECT, an endpoint echo's answer) and closes the same way: the
     * peer's further bytes discarded, FIN after the message, the socket closed when the peer closes
     * too or after {@link #LINGER_MILLIS}.
     */
    static void writeAndClose(Channel channel, Object last) {
        if (!channel.isActive() || channel.pipeline().get(DISCARD) != null) {
            return;
        }
        channel.pipeline().addFirst(DISCARD, DiscardInbound.INSTANCE);
        channel.writeAndFlush(last).addListener(f -> {
            if (f.isSuccess() && channel instanceof DuplexChannel duplex) {
                duplex.shutdownOutput();
            } else {
                channel.close();
            }
        });
        channel.eventLoop()
                .schedule(
                        () -> {
                            channel.close();
                        },
                        LINGER_MILLIS,
                        TimeUnit.MILLISECONDS);
    }

    /** First inbound handler of a link being closed: the peer's further bytes mean nothing now. */
    @Sharable
    static final class DiscardInbound extends ChannelInboundHandlerAdapter {
        static final DiscardInbound INSTANCE = new DiscardInbound();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ReferenceCountUtil.release(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            // The peer's FIN after our REJECT: nothing more to wait for.
            if (evt instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
                ctx.close();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
