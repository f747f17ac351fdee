package io.traverse.longpoll;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.proxy.HttpProxyHandler;
import io.netty.handler.proxy.ProxyConnectException;
import io.traverse.config.HttpProxy;
import io.traverse.spi.HttpTransport.Way;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * Puts a hub link through an HTTP proxy's CONNECT tunnel: Netty's {@link HttpProxyHandler} at the
 * head of the pipeline asks for the tunnel (with basic authentication when a user is set) and holds
 * the link handshake's first writes until the proxy has said yes; the link protocol then runs
 * through the tunnel unchanged.
 */
final class ProxyTunnel {
    private ProxyTunnel() {}

    /** Completes with what the proxy answered once the tunnel is open, or fails saying why there is none. */
    static CompletableFuture<String> install(ChannelPipeline pipeline, Way way, long timeoutMillis) {
        HttpProxy settings = way.proxy();
        HttpProxyHandler proxy = settings.user().isPresent()
                ? new HttpProxyHandler(
                        way.proxyAddress(),
                        settings.user().get(),
                        settings.password().orElse(""))
                : new HttpProxyHandler(way.proxyAddress());
        proxy.setConnectTimeoutMillis(timeoutMillis);
        StatusLine statusLine = new StatusLine();
        pipeline.addFirst("proxy", proxy);
        // After the proxy handler has put its HTTP codec in front of itself: sees the decoded answer.
        pipeline.addBefore("proxy", "proxy-status", statusLine);
        String who = "HTTP proxy " + settings.authority() + " (" + settings.origin() + ")";
        String hub = HttpProxy.authorityOf(way.hub());
        CompletableFuture<String> tunnel = new CompletableFuture<>();
        proxy.connectFuture().addListener(f -> {
            if (f.isSuccess()) {
                if (pipeline.get("proxy-status") != null) {
                    pipeline.remove("proxy-status");
                }
                tunnel.complete(who + " answered '" + statusLine.line + "' to CONNECT " + hub);
            } else if (statusLine.line != null) {
                IOException refusal = ProxyConnect.refusal(way, statusLine.line);
                refusal.initCause(f.cause());
                tunnel.completeExceptionally(refusal);
            } else if (f.cause() instanceof ProxyConnectException
                    && String.valueOf(f.cause().getMessage()).contains("timeout")) {
                tunnel.completeExceptionally(new IOException(
                        who + " did not answer CONNECT to hub " + hub + " within " + timeoutMillis + " ms", f.cause()));
            } else {
                tunnel.completeExceptionally(new IOException(
                        who + " gave no tunnel to hub " + hub + ": " + f.cause().getMessage(), f.cause()));
            }
        });
        return tunnel;
    }

    /** Remembers the status line of the proxy's answer, and passes everything on. */
    private static final class StatusLine extends ChannelInboundHandlerAdapter {
        volatile String line;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof HttpResponse response && line == null) {
                line = response.protocolVersion() + " " + response.status();
            }
            ctx.fireChannelRead(msg);
        }
    }
}
