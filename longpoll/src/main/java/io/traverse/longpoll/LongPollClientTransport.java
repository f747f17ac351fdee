package io.traverse.longpoll;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.traverse.identity.NodeId;
import io.traverse.settings.LongPollSettings;
import io.traverse.spi.LongPollTransport;
import java.util.concurrent.CompletableFuture;

/** Makes {@link LongPollClient} the node's {@link LongPollTransport}, found by {@link java.util.ServiceLoader}. */
public final class LongPollClientTransport implements LongPollTransport {
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
