package io.traverse.hub.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.traverse.hub.metrics.HubMetrics;
import io.traverse.hub.status.HubStatusReport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hub's HTTP port: {@code /metrics} (Prometheus text), {@code /status} (the
 * {@link HubStatusReport} as JSON) and {@code /} (what is served). Runs on the hub's own event
 * loops; requests are small, bounded and answered from snapshots, so nothing blocks.
 *
 * <p>Limits: request line 4 KiB, headers 8 KiB, no request body, {@value #MAX_CONNECTIONS}
 * connections at once (more are closed at once), idle connections closed after
 * {@value #IDLE_SECONDS} s.
 */
public final class HubHttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HubHttpServer.class);
    static final int MAX_CONNECTIONS = 64;
    static final int IDLE_SECONDS = 30;

    private final Channel serverChannel;
    private final AtomicInteger openConnections = new AtomicInteger();

    private HubHttpServer(InetSocketAddress bindAddress, EventLoopGroup group, Class<? extends ServerChannel> channelType,
            Supplier<HubStatusReport> status, HubMetrics metrics) throws IOException {
        ObjectMapper json = new ObjectMapper();
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(channelType)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childHandler(new ChannelInitializer<>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (openConnections.incrementAndGet() > MAX_CONNECTIONS) {
                            openConnections.decrementAndGet();
                            log.warn("HTTP connection from {} refused: {} connections already open", ch.remoteAddress(),
                                    MAX_CONNECTIONS);
                            ch.close();
                            return;
                        }
                        ch.closeFuture().addListener(f -> openConnections.decrementAndGet());
                        ch.pipeline()
                                .addLast(new IdleStateHandler(0, 0, IDLE_SECONDS, TimeUnit.SECONDS))
                                .addLast(new HttpServerCodec(4096, 8192, 8192))
                                .addLast(new HttpObjectAggregator(0))
                                .addLast(new HttpEndpointHandler(status, metrics, json));
                    }
                });
        ChannelFuture bound = bootstrap.bind(bindAddress).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new IOException("cannot open the hub's HTTP port on " + bindAddress + ": "
                    + bound.cause().getMessage(), bound.cause());
        }
        serverChannel = bound.channel();
        log.info("hub HTTP endpoint on http://{}/ (metrics, status)", describe(localAddress()));
    }

    /**
     * Opens the HTTP port. Must not be called on an event loop of {@code group} (it waits for the
     * bind).
     */
    public static HubHttpServer start(InetSocketAddress bindAddress, EventLoopGroup group,
            Class<? extends ServerChannel> channelType, Supplier<HubStatusReport> status, HubMetrics metrics)
            throws IOException {
        return new HubHttpServer(bindAddress, group, channelType, status, metrics);
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    @Override
    public void close() {
        serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    private static String describe(InetSocketAddress address) {
        String host = address.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
