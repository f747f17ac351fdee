package io.traverse.hub.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * The dashboard's static files — one page, its script and its style sheet — read once from the
 * hub's jar. The page fetches nothing else but its live feed from this hub; the headers tell the
 * browser so (a Content-Security-Policy of this origin only).
 */
final class DashboardPage {
    static final String PAGE = "/dashboard";
    static final String EVENTS = "/dashboard/events";
    private static final String SECURITY_POLICY =
            "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';"
                    + " img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    private static final Map<String, Asset> ASSETS = Map.of(
            PAGE,
            load("index.html", "text/html; charset=utf-8"),
            "/dashboard/dashboard.js",
            load("dashboard.js", "text/javascript; charset=utf-8"),
            "/dashboard/dashboard.css",
            load("dashboard.css", "text/css; charset=utf-8"));

    private record Asset(byte[] bytes, String contentType) {}

    private DashboardPage() {}

    /** True if {@code path} is one of the dashboard's files (the page also answers at {@code /}). */
    static boolean serves(String path) {
        return path.equals("/") || ASSETS.containsKey(path);
    }

    static void respond(ChannelHandlerContext ctx, String path) {
        Asset asset = ASSETS.get(path.equals("/") ? PAGE : path);
        FullHttpResponse response = new DefaultFullHttpResponse(
                HttpVersion.HTTP_1_1, HttpResponseStatus.OK, Unpooled.wrappedBuffer(asset.bytes()));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, asset.contentType());
        response.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, asset.bytes().length);
        response.headers().set(HttpHeaderNames.CONTENT_SECURITY_POLICY, SECURITY_POLICY);
        response.headers().set("X-Content-Type-Options", "nosniff");
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_CACHE);
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
    }

    private static Asset load(String file, String contentType) {
        try (InputStream in = DashboardPage.class.getResourceAsStream("dashboard/" + file)) {
            if (in == null) {
                throw new IllegalStateException("dashboard/" + file + " is missing from the hub's jar");
            }
            return new Asset(in.readAllBytes(), contentType);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
