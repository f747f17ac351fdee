package io.traverse.spi;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.traverse.config.HttpProxy;
import io.traverse.identity.NodeId;
import io.traverse.longpolling.SessionChannel;
import io.traverse.settings.LongPollSettings;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * A hub link whose bytes travel in HTTP requests (a long-poll session), for a node whose HTTP
 * proxy refuses CONNECT, or always with {@code traverse.http.tunnel=longpoll}. The hub link runs
 * its usual pipeline and handshake on the session's channel as on a socket; how the bytes get
 * there is the transport's. Found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.traverse.spi.LongPollTransport}); traverse-longpoll provides it,
 * so that core speaks no HTTP of its own. Needs a public no-argument constructor.
 */
public interface LongPollTransport {
    /**
     * Opens a session at the hub's link port, through {@code way.proxy()} when it is set, on
     * {@code loop} (the hub link's), whose transport's socket channels are {@code channelClass}
     * (epoll or NIO). Completes with the session, whose channel is ready for the
     * link pipeline and not yet registered, or fails with an {@link java.io.IOException} saying why.
     */
    CompletableFuture<Session> open(
            EventLoop loop,
            Class<? extends Channel> channelClass,
            Way way,
            NodeId node,
            LongPollSettings settings,
            long timeoutMillis);

    /**
     * Where the session goes.
     *
     * @param hub the hub's link address
     * @param proxy the HTTP proxy to go through, or null to send the requests to the hub itself
     * @param proxyAddress the proxy's resolved address (null with it)
     */
    record Way(InetSocketAddress hub, HttpProxy proxy, InetSocketAddress proxyAddress) {}

    /** One open session. */
    interface Session {
        /** The channel the hub link runs on; register it on the link's loop, then {@link #start}. */
        SessionChannel channel();

        /** For the hub link status and {@code traverse diagnose}, e.g. "long-poll session through HTTP proxy …". */
        String route();

        /** Starts polling, once the channel is registered on {@code loop}. */
        void start(EventLoop loop);
    }
}
