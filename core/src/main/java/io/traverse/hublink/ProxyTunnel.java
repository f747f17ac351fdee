package io.traverse.hublink;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.proxy.HttpProxyHandler;
import io.netty.handler.proxy.ProxyConnectException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Puts a hub link through an HTTP proxy's CONNECT tunnel: Netty's
 * {@link HttpProxyHandler} at the head of the pipeline asks for the tunnel (with basic
 * authentication when a user is set) and holds the link handshake's first writes until the proxy
 * has said yes; the link protocol then runs through the tunnel unchanged. A refusal fails the
 * handshake with the proxy's name and status line, not with a generic closed connection.
 */
final class ProxyTunnel {
    private ProxyTunnel() {}

    static void install(
            ChannelPipeline pipeline,
            ProxyRoute route,
            InetSocketAddress hub,
            long timeoutMillis,
            CompletableFuture<?> handshake,
            Consumer<String> answers) {
        HttpProxyHandler proxy = route.proxy().user().isPresent()
                ? new HttpProxyHandler(
                        route.address(),
                        route.proxy().user().get(),
                        route.proxy().password().orElse(""))
                : new HttpProxyHandler(route.address());
        proxy.setConnectTimeoutMillis(timeoutMillis);
        StatusLine statusLine = new StatusLine();
        pipeline.addFirst("proxy", proxy);
        // After the proxy handler has put its HTTP codec in front of itself: sees the decoded answer.
        pipeline.addBefore("proxy", "proxy-status", statusLine);
        String who = route + " (" + route.proxy().origin() + ")";
        proxy.connectFuture().addListener(f -> {
            if (f.isSuccess()) {
                answers.accept(who + " answered '" + statusLine.line + "' to CONNECT " + ProxyRoute.authority(hub));
                if (pipeline.get("proxy-status") != null) {
                    pipeline.remove("proxy-status");
                }
                return;
            }
            String why;
            if (statusLine.line != null) {
                why = route.refusal(hub, statusLine.line);
                answers.accept(why);
                // 401/407: the proxy wants other credentials, and would ask them of a long-poll session too.
                boolean credentials = statusLine.line.contains(" 407 ") || statusLine.line.contains(" 401 ");
                handshake.completeExceptionally(
                        credentials ? new HubLinkException(why, f.cause()) : new ConnectRefused(why, f.cause()));
                return;
            } else if (f.cause() instanceof ProxyConnectException
                    && String.valueOf(f.cause().getMessage()).contains("timeout")) {
                why = who + " did not answer CONNECT to hub " + ProxyRoute.authority(hub) + " within " + timeoutMillis
                        + " ms";
            } else {
                why = who + " gave no tunnel to hub " + ProxyRoute.authority(hub) + ": "
                        + f.cause().getMessage();
            }
            answers.accept(why);
            handshake.completeExceptionally(new HubLinkException(why, f.cause()));
        });
    }

    /** The proxy refused CONNECT for another reason than credentials (a long-poll session may still get through it). */
    static final class ConnectRefused extends HubLinkException {
        private static final long serialVersionUID = 1L;

        ConnectRefused(String message, Throwable cause) {
            super(message, cause);
        }
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
