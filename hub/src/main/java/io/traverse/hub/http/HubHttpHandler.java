package io.traverse.hub.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers one request per connection: GET /metrics, GET /status, the dashboard's files (at / and
 * /dashboard) and its live feed (GET /dashboard/events, which stays open); anything else gets
 * 404 or 405. Requests after the first on a connection (pipelined, or sent on an open event
 * stream) are dropped unanswered: the first answer closes the connection or never ends, so no
 * second can follow it, and each further request for the feed took another of its places (eight
 * pipelined on one connection shut every other page out).
 */
final class HubHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(HubHttpHandler.class);
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final StatusSource source;
    private final Executor worker;
    private final DashboardFeed feed;
    /** One handler per connection: set once its first request is taken. */
    private boolean answered;

    HubHttpHandler(StatusSource source, Executor worker, DashboardFeed feed) {
        this.source = source;
        this.worker = worker;
        this.feed = feed;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (answered) {
            log.debug(
                    "Dropped a further request on the HTTP connection from {}: one request per connection",
                    ctx.channel().remoteAddress());
            return;
        }
        answered = true;
        if (!request.decoderResult().isSuccess()) {
            respond(ctx, HttpResponseStatus.BAD_REQUEST, "text/plain; charset=utf-8", "malformed request\n");
            return;
        }
        String path;
        try {
            path = new QueryStringDecoder(request.uri()).path();
        } catch (IllegalArgumentException badEscape) { // a % not followed by two hex digits
            respond(ctx, HttpResponseStatus.BAD_REQUEST, "text/plain; charset=utf-8", "malformed request target\n");
            return;
        }
        if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
            respond(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", "only GET\n");
            return;
        }
        if (DashboardPage.serves(path)) {
            DashboardPage.respond(ctx, path);
            return;
        }
        switch (path) {
            // Rendering takes a while (the first scrape loads classes): never on the event loop, which serves the
            // links.
            case "/metrics" -> offload(ctx, () -> source.metrics(), PROMETHEUS_TEXT);
            case "/status" ->
                source.status().whenComplete((status, failure) -> {
                    if (failure != null) {
                        ctx.executor()
                                .execute(() -> respond(
                                        ctx,
                                        HttpResponseStatus.SERVICE_UNAVAILABLE,
                                        "text/plain; charset=utf-8",
                                        "status unavailable\n"));
                    } else {
                        offload(ctx, () -> StatusJson.write(status), "application/json");
                    }
                });
            case DashboardPage.EVENTS -> {
                if (request.method().equals(HttpMethod.GET)) {
                    feed.open(ctx);
                } else {
                    respond(
                            ctx,
                            HttpResponseStatus.METHOD_NOT_ALLOWED,
                            "text/plain; charset=utf-8",
                            "only GET: this is an event stream\n");
                }
            }
            default ->
                respond(
                        ctx,
                        HttpResponseStatus.NOT_FOUND,
                        "text/plain; charset=utf-8",
                        "no " + path + " here: /metrics /status /dashboard\n");
        }
    }

    private void offload(ChannelHandlerContext ctx, Supplier<String> body, String contentType) {
        try {
            worker.execute(() -> {
                String text = body.get();
                ctx.executor().execute(() -> respond(ctx, HttpResponseStatus.OK, contentType, text));
            });
        } catch (RejectedExecutionException busy) {
            ctx.executor()
                    .execute(() -> respond(
                            ctx, HttpResponseStatus.SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", "busy\n"));
        }
    }

    static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String contentType, String body) {
        ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("HTTP connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
