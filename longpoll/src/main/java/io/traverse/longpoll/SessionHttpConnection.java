package io.traverse.longpoll;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import io.traverse.longpolling.LongPollProtocol;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One persistent HTTP/1.1 connection of a long-poll session, straight to the hub or to the HTTP
 * proxy (then with absolute-form request targets, which proxies forward to any port, unlike
 * CONNECT), carrying one request at a time. It lives on the hub link's own event loop, so an
 * answer is read, and its bytes handed to the session channel, on the thread that runs the link:
 * no hand-off to another thread on the way (for latency: the JDK's {@code HttpClient}
 * took three, one of them a new thread per answer on machines with fewer than three CPUs). When
 * the far side closes the connection (a proxy that does not keep connections alive, a restart)
 * the next request opens a new one.
 *
 * <p>Not thread-safe: every method runs on {@code loop}, and every future completes there.
 */
final class SessionHttpConnection {
    /** Longest status line and header line read (the hub's answers are short; a proxy's error pages carry a few headers). */
    private static final int MAX_HEADER = 16 * 1024;

    private final EventLoop loop;
    private final Class<? extends Channel> channelClass;
    private final InetSocketAddress target;
    private final String host;
    /** {@code http://host:port} before every path when the request goes to a proxy; empty straight to the hub. */
    private final String targetPrefix;

    private final String proxyAuthorization;
    private final int connectTimeoutMillis;
    private Channel channel;
    private CompletableFuture<FullHttpResponse> pending;
    private ScheduledFuture<?> timer;
    private boolean closed;

    /**
     * @param channelClass       the socket channel class of {@code loop}'s transport (epoll or NIO)
     * @param target             where the TCP connection goes: the proxy's address, or the hub's
     * @param hubAuthority       {@code host:port} of the hub (the {@code Host} header)
     * @param throughProxy       whether {@code target} is a proxy (absolute-form request targets)
     * @param proxyAuthorization {@code Proxy-Authorization} sent with every request, or null
     */
    SessionHttpConnection(
            EventLoop loop,
            Class<? extends Channel> channelClass,
            InetSocketAddress target,
            String hubAuthority,
            boolean throughProxy,
            String proxyAuthorization,
            int connectTimeoutMillis) {
        this.loop = loop;
        this.channelClass = channelClass;
        this.target = target;
        this.host = hubAuthority;
        this.targetPrefix = throughProxy ? "http://" + hubAuthority : "";
        this.proxyAuthorization = proxyAuthorization;
        this.connectTimeoutMillis = connectTimeoutMillis;
    }

    /** A connection to the same place (the session's second one: an upstream request runs while a poll is held). */
    SessionHttpConnection sibling() {
        return new SessionHttpConnection(
                loop, channelClass, target, host, !targetPrefix.isEmpty(), proxyAuthorization, connectTimeoutMillis);
    }

    /**
     * Sends one request; the answer (the caller releases it) or the failure comes on the loop. A
     * request while another is outstanding is a programming error. Takes ownership of {@code body}.
     *
     * @param path    the path and query, from {@link LongPollProtocol#BASE}
     * @param timeout milliseconds to the whole answer, connecting included; then the connection closes
     */
    CompletableFuture<FullHttpResponse> send(
            HttpMethod method, String path, Map<String, String> headers, ByteBuf body, long timeout) {
        CompletableFuture<FullHttpResponse> answer = new CompletableFuture<>();
        if (closed || pending != null) {
            body.release();
            answer.completeExceptionally(new IOException(
                    closed
                            ? "the session's HTTP connection is closed"
                            : "a request is already outstanding on this HTTP connection"));
            return answer;
        }
        FullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, method, targetPrefix + path, body);
        request.headers().set(HttpHeaderNames.HOST, host);
        request.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        if (proxyAuthorization != null) {
            request.headers().set(HttpHeaderNames.PROXY_AUTHORIZATION, proxyAuthorization);
        }
        headers.forEach((k, v) -> request.headers().set(k, v));
        pending = answer;
        timer = loop.schedule(() -> fail(answer, new AnswerTimeoutException(timeout)), timeout, TimeUnit.MILLISECONDS);
        if (channel != null && channel.isActive()) {
            write(request, answer);
        } else {
            connect(request, answer);
        }
        return answer;
    }

    private void connect(FullHttpRequest request, CompletableFuture<FullHttpResponse> answer) {
        ChannelFuture connecting = new Bootstrap()
                .group(loop)
                .channel(channelClass)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new HttpClientCodec(4096, MAX_HEADER, 64 * 1024));
                        ch.pipeline().addLast(new HttpObjectAggregator(LongPollProtocol.MAX_BODY + 64 * 1024));
                        ch.pipeline().addLast(new Answers());
                    }
                })
                .connect(target);
        channel = connecting.channel();
        connecting.addListener(f -> {
            if (!f.isSuccess()) {
                request.release();
                fail(answer, f.cause());
            } else if (pending != answer) {
                request.release(); // timed out or closed meanwhile
            } else {
                write(request, answer);
            }
        });
    }

    private void write(FullHttpRequest request, CompletableFuture<FullHttpResponse> answer) {
        channel.writeAndFlush(request).addListener(f -> {
            if (!f.isSuccess()) {
                fail(answer, f.cause());
            }
        });
    }

    /** Fails {@code answer} if it is still the outstanding one, and drops the connection (its state is unknown). */
    private void fail(CompletableFuture<FullHttpResponse> answer, Throwable cause) {
        if (pending != answer) {
            return;
        }
        pending = null;
        cancelTimer();
        if (channel != null) {
            channel.close();
            channel = null;
        }
        answer.completeExceptionally(cause);
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** Closes the connection; an outstanding request fails. */
    void close() {
        closed = true;
        CompletableFuture<FullHttpResponse> p = pending;
        if (p != null) {
            fail(p, new IOException("the session's HTTP connection was closed"));
        } else if (channel != null) {
            channel.close();
            channel = null;
        }
    }

    /** No whole answer within a request's time (the client timeout). */
    static final class AnswerTimeoutException extends IOException {
        private static final long serialVersionUID = 1L;

        AnswerTimeoutException(long millis) {
            super("no answer in " + millis + " ms");
        }
    }

    private final class Answers extends SimpleChannelInboundHandler<FullHttpResponse> {
        Answers() {
            super(false);
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            CompletableFuture<FullHttpResponse> answer = pending;
            if (answer == null || ctx.channel() != channel) {
                response.release(); // nothing asked on this connection (any more)
                ctx.close();
                return;
            }
            pending = null;
            cancelTimer();
            if (response.decoderResult().isFailure()) {
                response.release();
                channel = null;
                ctx.close();
                answer.completeExceptionally(new IOException(
                        "malformed HTTP answer: "
                                + response.decoderResult().cause().getMessage(),
                        response.decoderResult().cause()));
                return;
            }
            if (!HttpUtil.isKeepAlive(response)) {
                channel = null;
                ctx.close();
            }
            answer.complete(response);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            if (ctx.channel() == channel) {
                CompletableFuture<FullHttpResponse> answer = pending;
                if (answer != null) {
                    fail(answer, new IOException("the connection closed before the answer came"));
                } else {
                    channel = null;
                }
            }
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (ctx.channel() == channel && pending != null) {
                fail(pending, cause);
            } else {
                ctx.close();
            }
        }
    }

    static ByteBuf noBody() {
        return Unpooled.EMPTY_BUFFER;
    }
}
