package io.traverse.hub.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.status.HubStatusReport;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Answers one HTTP request at a time on a connection: routes by path, GET and HEAD only. */
final class HttpEndpointHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(HttpEndpointHandler.class);
    private static final String INDEX = """
            Traverse hub
              /metrics  Prometheus metrics
              /status   what this hub knows of the hub network (JSON)
            """;

    private final Supplier<HubStatusReport> status;
    private final HubMetrics metrics;
    private final ObjectMapper json;

    HttpEndpointHandler(Supplier<HubStatusReport> status, HubMetrics metrics, ObjectMapper json) {
        this.status = status;
        this.metrics = metrics;
        this.json = json;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (!request.decoderResult().isSuccess()) {
            respond(ctx, request, HttpResponseStatus.BAD_REQUEST, "text/plain; charset=utf-8",
                    "bad request: " + request.decoderResult().cause().getMessage() + "\n", false);
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(request);
        if (!HttpMethod.GET.equals(request.method()) && !HttpMethod.HEAD.equals(request.method())) {
            respond(ctx, request, HttpResponseStatus.METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
                    "only GET and HEAD are served here\n", keepAlive);
            return;
        }
        String path = new QueryStringDecoder(request.uri()).path();
        switch (path) {
            case "/" -> respond(ctx, request, HttpResponseStatus.OK, "text/plain; charset=utf-8", INDEX, keepAlive);
            case "/metrics" -> respond(ctx, request, HttpResponseStatus.OK, HubMetrics.contentType(), metrics.scrape(),
                    keepAlive);
            case "/status" -> respondStatus(ctx, request, keepAlive);
            default -> respond(ctx, request, HttpResponseStatus.NOT_FOUND, "text/plain; charset=utf-8",
                    "no such page: " + path + "\n" + INDEX, keepAlive);
        }
    }

    private void respondStatus(ChannelHandlerContext ctx, FullHttpRequest request, boolean keepAlive) {
        String body;
        try {
            body = json.writerWithDefaultPrettyPrinter().writeValueAsString(status.get()) + "\n";
        } catch (JsonProcessingException | RuntimeException e) {
            log.warn("status document failed", e);
            respond(ctx, request, HttpResponseStatus.INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8",
                    "status not available: " + e.getMessage() + "\n", keepAlive);
            return;
        }
        respond(ctx, request, HttpResponseStatus.OK, "application/json", body, keepAlive);
    }

    private static void respond(ChannelHandlerContext ctx, FullHttpRequest request, HttpResponseStatus code,
            String contentType, String body, boolean keepAlive) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        boolean head = HttpMethod.HEAD.equals(request.method());
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, code,
                head ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        if (keepAlive) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
            ctx.writeAndFlush(response);
        } else {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof IdleStateEvent) {
            ctx.close();
            return;
        }
        super.userEventTriggered(ctx, event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("HTTP connection from {} closed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
