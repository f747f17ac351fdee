package io.traverse.hub.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.traverse.hub.link.HttpRequestDeadline;
import io.traverse.hub.link.NettyTransport;
import io.traverse.hub.link.PendingConnections;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/** Listens for HTTP requests of operators and monitoring: metrics, status and the dashboard, nothing that changes the hub. */
public final class HubHttpEndpoint {
    /** Requests are a line and a few headers: nothing bigger is read (a bigger head is answered 400). */
    static final int MAX_REQUEST_BYTES = 8 * 1024;

    static final int IDLE_SECONDS = 10;

    private final Channel serverChannel;
    private final DashboardFeed feed;

    private HubHttpEndpoint(Channel serverChannel, DashboardFeed feed) {
        this.serverChannel = serverChannel;
        this.feed = feed;
    }

    /** Binds and serves (rendering happens on {@code worker}, never on an event loop); blocks the calling thread (never an event loop) until bound. */
    public static HubHttpEndpoint bind(
            NettyTransport transport,
            EventLoopGroup group,
            InetSocketAddress address,
            StatusSource source,
            Executor worker,
            PendingConnections pending,
            Duration requestTimeout)
            throws InterruptedException {
        DashboardFeed feed = new DashboardFeed(source, worker, group.next());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannelClass())
                .option(ChannelOption.SO_REUSEADDR, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        // Until its request has arrived whole, a connection holds a place among a bounded number,
                        // and its request's head must come within the deadline however it trickles in (slowloris).
                        if (!pending.admit(ch)) {
                            return;
                        }
                        HttpRequestDeadline deadline = new HttpRequestDeadline(requestTimeout);
                        ch.pipeline().addLast(new ReadTimeoutHandler(IDLE_SECONDS, TimeUnit.SECONDS));
                        ch.pipeline().addLast(deadline.bytes());
                        ch.pipeline().addLast(new HttpServerCodec(4096, MAX_REQUEST_BYTES, MAX_REQUEST_BYTES));
                        ch.pipeline().addLast(deadline.requests());
                        ch.pipeline().addLast(new HttpObjectAggregator(MAX_REQUEST_BYTES));
                        ch.pipeline().addLast(new HubHttpHandler(source, worker, feed));
                    }
                });
        try {
            return new HubHttpEndpoint(bootstrap.bind(address).sync().channel(), feed);
        } catch (InterruptedException | RuntimeException e) {
            feed.close();
            throw e;
        }
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Dashboard streams open now. */
    public int dashboardStreams() {
        return feed.openStreams();
    }

    public void close() {
        feed.close();
        serverChannel.close().syncUninterruptibly();
    }
}
