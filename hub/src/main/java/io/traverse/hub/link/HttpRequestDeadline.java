package io.traverse.hub.link;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The header-read deadline of an HTTP connection (what nginx calls {@code client_header_timeout}):
 * from the connection's start, and on a kept-alive connection from the first byte of each further
 * request, the request line and headers must arrive within the timeout, or the connection is
 * closed. A read timeout that any byte resets would let a client that sends a
 * byte every few seconds (slowloris) hold a connection for hours; this one it cannot stretch. The
 * time between requests on a kept-alive connection and the body of a request are not counted (a
 * long poll waits there, and a body may be large on a slow line); other handlers bound those.
 *
 * <p>Two handlers, one on each side of the HTTP codec: {@link #bytes()} sees the first bytes of a
 * request arrive, {@link #requests()} sees its head decoded. A head decoded also gives back the
 * connection's place among the {@link PendingConnections} it may hold. One per connection, on its
 * event loop only.
 */
public final class HttpRequestDeadline {
    private static final Logger log = LoggerFactory.getLogger(HttpRequestDeadline.class);

    private final long timeoutMillis;
    private ScheduledFuture<?> timer;
    /** Between the first byte of a request and its head. */
    private boolean inHead;
    /** Between a head and its last content. */
    private boolean inBody;

    public HttpRequestDeadline(Duration timeout) {
        this.timeoutMillis = timeout.toMillis();
    }

    /** Goes before the HTTP codec. */
    public ChannelHandler bytes() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void handlerAdded(ChannelHandlerContext ctx) {
                if (ctx.channel().isActive()) {
                    arm(ctx); // put on a connection already open (an HTTP request told on the link port)
                }
            }

            @Override
            public void channelActive(ChannelHandlerContext ctx) {
                arm(ctx); // a new connection owes its first request at once: an idle one is cut like a slow one
                ctx.fireChannelActive();
            }

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (!inHead && !inBody && msg instanceof ByteBuf b && b.isReadable()) {
                    arm(ctx);
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                cancel();
                ctx.fireChannelInactive();
            }

            @Override
            public void handlerRemoved(ChannelHandlerContext ctx) {
                cancel();
            }
        };
    }

    /** Goes right after the HTTP codec (before any aggregator). */
    public ChannelHandler requests() {
        return new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HttpRequest) {
                    cancel();
                    inHead = false;
                    inBody = true;
                    PendingConnections.release(ctx.channel());
                }
                if (msg instanceof LastHttpContent) {
                    inBody = false;
                }
                ctx.fireChannelRead(msg);
            }
        };
    }

    private void arm(ChannelHandlerContext ctx) {
        if (!inHead) {
            inHead = true;
            timer = ctx.executor().schedule(() -> expired(ctx), timeoutMillis, TimeUnit.MILLISECONDS);
        }
    }

    private void expired(ChannelHandlerContext ctx) {
        if (inHead && ctx.channel().isActive()) {
            log.debug(
                    "Closing HTTP connection from {}: no whole request line and headers within {} ms",
                    ctx.channel().remoteAddress(),
                    timeoutMillis);
            ctx.channel().close();
        }
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }
}
