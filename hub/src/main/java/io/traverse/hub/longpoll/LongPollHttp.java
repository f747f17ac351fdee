package io.traverse.hub.longpoll;

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
import io.netty.handler.timeout.IdleStateEvent;
import io.traverse.longpolling.LongPollProtocol;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP connection to the long-poll endpoint: parses each request, finds and checks its
 * session, and hands it to the session's event loop. Malformed requests get 400 and the
 * connection closes; nothing here touches another session.
 */
final class LongPollHttp extends SimpleChannelInboundHandler<FullHttpRequest> {
    private static final Logger log = LoggerFactory.getLogger(LongPollHttp.class);
    /** Compiled once: every poll's path is checked against it. */
    private static final Pattern SESSION_ID = Pattern.compile("[0-9a-f]{32}");

    private final LongPollSessions sessions;

    LongPollHttp(LongPollSessions sessions) {
        this.sessions = sessions;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
        if (request.decoderResult().isFailure()) {
            respondAndClose(
                    ctx,
                    HttpResponseStatus.BAD_REQUEST,
                    "malformed HTTP request: " + request.decoderResult().cause().getMessage());
            return;
        }
        String uri = request.uri();
        if (uri.startsWith("http://")) {
            // absolute form, as a client that thinks it talks to a proxy sends it
            int slash = uri.indexOf('/', 7);
            uri = slash < 0 ? "/" : uri.substring(slash);
        }
        QueryStringDecoder decoder = new QueryStringDecoder(uri);
        String path;
        Map<String, String> query = new HashMap<>();
        try {
            path = decoder.path();
            decoder.parameters().forEach((k, v) -> query.put(k, v.get(0)));
        } catch (IllegalArgumentException badEscape) { // a % not followed by two hex digits
            respondAndClose(
                    ctx,
                    HttpResponseStatus.BAD_REQUEST,
                    "malformed request target: " + shorten(badEscape.getMessage()));
            return;
        }
        if (!path.startsWith(LongPollProtocol.BASE + "/")) {
            respond(
                    ctx,
                    HttpResponseStatus.NOT_FOUND,
                    "this is a Traverse hub's link port; long-poll sessions live under " + LongPollProtocol.BASE + "/");
            return;
        }
        String[] parts = path.substring(LongPollProtocol.BASE.length() + 1).split("/", -1);
        HttpMethod method = request.method();
        try {
            if (parts.length == 1 && parts[0].equals("open")) {
                if (!method.equals(HttpMethod.POST)) {
                    respond(ctx, HttpResponseStatus.METHOD_NOT_ALLOWED, "open is a POST");
                } else {
                    sessions.open(ctx, request, query);
                }
                return;
            }
            if (parts.length > 2 || !SESSION_ID.matcher(parts[0]).matches()) {
                respond(ctx, HttpResponseStatus.NOT_FOUND, "no such long-poll endpoint: " + shorten(path));
                return;
            }
            String action = parts.length == 2 ? parts[1] : "";
            HttpMethod expected = switch (action) {
                case "up" -> HttpMethod.POST;
                case "down" -> HttpMethod.GET;
                case "" -> HttpMethod.DELETE;
                default -> null;
            };
            if (expected == null) {
                respond(ctx, HttpResponseStatus.NOT_FOUND, "no such long-poll endpoint: " + shorten(path));
                return;
            }
            if (!method.equals(expected)) {
                respond(
                        ctx,
                        HttpResponseStatus.METHOD_NOT_ALLOWED,
                        (action.isEmpty() ? "a session" : action) + " takes " + expected);
                return;
            }
            long seq = action.equals("up") ? number(query, "seq", -1) : 0;
            long ack = action.equals("down") ? number(query, "ack", -1) : 0;
            long wait = action.equals("down") ? number(query, "wait", 0) : 0;
            if (seq < 0 || ack < 0) {
                respond(
                        ctx,
                        HttpResponseStatus.BAD_REQUEST,
                        action + " needs " + (action.equals("up") ? "seq" : "ack"));
                return;
            }
            LongPollSession s = sessions.authorize(ctx, request, parts[0]);
            if (s == null) {
                return;
            }
            if (ctx.channel().remoteAddress() instanceof InetSocketAddress peer) {
                s.channel.remote(peer);
            }
            Runnable serve = switch (action) {
                case "up" -> {
                    ByteBuf body = request.content().retain();
                    yield () -> s.upstream(ctx, seq, body);
                }
                case "down" -> () -> s.poll(ctx, ack, wait);
                default -> () -> s.delete(ctx);
            };
            // On the session's own loop (usually this connection's: see LongPollSessions.open), at once rather than
            // queued.
            if (s.loop.inEventLoop()) {
                serve.run();
            } else {
                s.loop.execute(serve);
            }
        } catch (IllegalArgumentException e) {
            respond(ctx, HttpResponseStatus.BAD_REQUEST, e.getMessage());
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            ctx.close(); // no request for longer than any poll may be held
        } else {
            super.userEventTriggered(ctx, evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("Long-poll HTTP connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    /** A non-negative whole number from the query, or {@code absent} when it is not there. */
    static long number(Map<String, String> query, String name, long absent) {
        String v = query.get(name);
        if (v == null) {
            return absent;
        }
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "query parameter " + name + " = '" + shorten(v) + "' is not a non-negative whole number");
        }
    }

    static String shorten(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "...";
    }

    /**
     * A text answer. An error (4xx, 5xx) closes the connection after it: a connection that serves
     * no session is not kept open for whoever sent it (a stranger could hold thousands so).
     */
    static void respond(ChannelHandlerContext ctx, HttpResponseStatus status, String reason) {
        ByteBuf body = Unpooled.copiedBuffer(reason.isEmpty() ? "" : reason + "\n", StandardCharsets.UTF_8);
        if (status.code() < 400) {
            respond(ctx, status, body, Map.of(HttpHeaderNames.CONTENT_TYPE.toString(), "text/plain; charset=utf-8"));
            return;
        }
        if (!ctx.channel().isActive()) {
            body.release();
            return;
        }
        FullHttpResponse response =
                response(status, body, Map.of(HttpHeaderNames.CONTENT_TYPE.toString(), "text/plain; charset=utf-8"));
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    static void respondAndClose(ChannelHandlerContext ctx, HttpResponseStatus status, String reason) {
        FullHttpResponse response =
                response(status, Unpooled.copiedBuffer(reason + "\n", StandardCharsets.UTF_8), Map.of());
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    static void respond(
            ChannelHandlerContext ctx, HttpResponseStatus status, ByteBuf body, Map<String, String> headers) {
        if (!ctx.channel().isActive()) {
            body.release();
            return;
        }
        ctx.writeAndFlush(response(status, body, headers)).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    private static FullHttpResponse response(HttpResponseStatus status, ByteBuf body, Map<String, String> headers) {
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        headers.forEach((k, v) -> response.headers().set(k, v));
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        if (!response.headers().contains(HttpHeaderNames.CONTENT_TYPE)) {
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/octet-stream");
        }
        return response;
    }
}
