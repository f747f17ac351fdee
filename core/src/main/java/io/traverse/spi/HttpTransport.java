package io.traverse.spi;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.traverse.config.HttpProxy;
import io.traverse.identity.NodeId;
import io.traverse.longpolling.SessionChannel;
import io.traverse.settings.LongPollSettings;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * The hub link's ways through HTTP, for sites whose only way out is an HTTP proxy: a CONNECT tunnel
 * at the proxy (for the hub link's channel and for the data link's socket), and a long-poll session
 * that carries the link's bytes in HTTP requests (when the proxy refuses CONNECT, or always with
 * {@code traverse.http.tunnel=longpoll}). The hub link runs its usual pipeline and handshake in the
 * tunnel or on the session's channel as on a plain socket; the HTTP is the transport's, so that core
 * speaks none of its own. Found with {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.traverse.spi.HttpTransport}); traverse-longpoll provides it. Needs a
 * public no-argument constructor.
 */
public interface HttpTransport {
    /**
     * Asks {@code way.proxy()} for a tunnel to the hub from the head of a hub link's pipeline, whose
     * channel is about to connect to the proxy. The link's first writes are held until the proxy has
     * said yes; then the tunnel carries the link unchanged.
     *
     * @return completes with what the proxy answered, naming it (for {@code traverse diagnose}), once
     *     the tunnel is open; fails with {@link ConnectRefusedException} when the proxy said no, or
     *     with an {@link IOException} when it gave no tunnel for another reason
     */
    CompletableFuture<String> tunnel(ChannelPipeline pipeline, Way way, long timeoutMillis);

    /**
     * Asks {@code way.proxy()} for a tunnel to the hub over {@code stream}, a socket already connected
     * to the proxy (the data link's), and reads its answer. Bytes that follow the answer (the hub may
     * speak first) stay in the stream's buffer.
     *
     * @throws ConnectRefusedException if the proxy said no
     * @throws IOException if it gave no answer in time or an answer that is not HTTP
     */
    void tunnel(BlockingStream stream, Way way) throws IOException;

    /**
     * Opens a long-poll session at the hub's link port, through {@code way.proxy()} when it is set,
     * on {@code loop} (the hub link's), whose transport's socket channels are {@code channelClass}
     * (epoll or NIO). Completes with the session, whose channel is ready for the link pipeline and not
     * yet registered, or fails with an {@link IOException} saying why.
     */
    CompletableFuture<Session> open(
            EventLoop loop,
            Class<? extends Channel> channelClass,
            Way way,
            NodeId node,
            LongPollSettings settings,
            long timeoutMillis);

    /**
     * Where the bytes go.
     *
     * @param hub the hub's link address
     * @param proxy the HTTP proxy to go through, or null to go to the hub itself (long-poll only)
     * @param proxyAddress the proxy's resolved address (null with it)
     */
    record Way(InetSocketAddress hub, HttpProxy proxy, InetSocketAddress proxyAddress) {}

    /** One open long-poll session. */
    interface Session {
        /** The channel the hub link runs on; register it on the link's loop, then {@link #start}. */
        SessionChannel channel();

        /** For the hub link status and {@code traverse diagnose}, e.g. "long-poll session through HTTP proxy …". */
        String route();

        /** Starts polling, once the channel is registered on {@code loop}. */
        void start(EventLoop loop);
    }

    /** A connected socket read and written with a deadline the caller keeps, as the data link's is. */
    interface BlockingStream {
        /** Writes all of {@code bytes}, or fails when the deadline passes. */
        void write(ByteBuffer bytes) throws IOException;

        /**
         * Reads until at least {@code bytes} are buffered and returns the buffer; the caller consumes
         * what it reads by moving the buffer's reader index. Fails at end of stream or when the deadline
         * passes.
         */
        ByteBuf fill(int bytes) throws IOException;
    }

    /**
     * The proxy answered CONNECT with a refusal; the message names the proxy, the hub and the status
     * line. A refusal for credentials (401, 407) is a setting to fix; another (a 403 for the port,
     * say) may leave the hub reachable by a long-poll session through the same proxy.
     */
    final class ConnectRefusedException extends IOException {
        private static final long serialVersionUID = 1L;
        private final boolean credentials;

        public ConnectRefusedException(String message, boolean credentials) {
            super(message);
            this.credentials = credentials;
        }

        /** True if the proxy wants a valid user and password: a long-poll session would be asked them too. */
        public boolean wantsCredentials() {
            return credentials;
        }
    }
}
