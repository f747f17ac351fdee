package io.traverse.longpoll;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.traverse.identity.NodeId;
import io.traverse.settings.LongPollSettings;
import io.traverse.spi.HttpTransport;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

/**
 * The node's {@link HttpTransport}, found by {@link java.util.ServiceLoader}: CONNECT tunnels for
 * the hub link ({@link ProxyTunnel}) and the data link ({@link ProxyConnect}), long-poll sessions
 * ({@link LongPollClient}).
 */
public final class HttpHubTransport implements HttpTransport {
    @Override
    public CompletableFuture<String> tunnel(ChannelPipeline pipeline, Way way, long timeoutMillis) {
        return ProxyTunnel.install(pipeline, way, timeoutMillis);
    }

    @Override
    public void tunnel(BlockingStream stream, Way way) throws IOException {
        ProxyConnect.tunnel(stream, way);
    }

    @Override
    public CompletableFuture<Session> open(
            EventLoop loop,
            Class<? extends Channel> channelClass,
            Way way,
            NodeId node,
            LongPollSettings settings,
            long timeoutMillis) {
        return LongPollClient.open(loop, channelClass, way, node, settings, timeoutMillis);
    }
}
