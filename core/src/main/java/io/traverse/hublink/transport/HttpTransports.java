package io.traverse.hublink.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.traverse.config.HttpProxy;
import io.traverse.identity.NodeId;
import io.traverse.settings.LongPollSettings;
import io.traverse.spi.HttpTransport;
import java.util.Iterator;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;

/** Finds the {@link HttpTransport} on the class path; without one, a link that needs HTTP fails with a line that says why. */
public final class HttpTransports {
    private HttpTransports() {}

    /** Looked up on first use: most links never go through HTTP, and the class path does not change. */
    private static final class Found {
        static final HttpTransport TRANSPORT = load();
    }

    /** The transport of this class path, found once, when a link first needs it. */
    static HttpTransport shared() {
        return Found.TRANSPORT;
    }

    static HttpTransport load() {
        Iterator<HttpTransport> found = ServiceLoader.load(HttpTransport.class, HttpTransports.class.getClassLoader())
                .iterator();
        return found.hasNext() ? found.next() : new Missing();
    }

    private static final class Missing implements HttpTransport {
        @Override
        public CompletableFuture<String> tunnel(ChannelPipeline pipeline, Way way, long timeoutMillis) {
            return CompletableFuture.failedFuture(
                    missing("tunnel through HTTP proxy " + way.proxy().authority(), way));
        }

        @Override
        public void tunnel(BlockingStream stream, Way way) throws HubLinkException {
            throw missing("tunnel through HTTP proxy " + way.proxy().authority(), way);
        }

        @Override
        public CompletableFuture<Session> open(
                EventLoop loop,
                Class<? extends Channel> channelClass,
                Way way,
                NodeId node,
                LongPollSettings settings,
                long timeoutMillis) {
            return CompletableFuture.failedFuture(missing("long-poll session", way));
        }

        private static HubLinkException missing(String what, Way way) {
            return new HubLinkException(
                    "cannot open a " + what + " to hub " + HttpProxy.authorityOf(way.hub())
                            + ": no HTTP transport is on the class path (it comes with traverse-longpoll)",
                    false);
        }
    }
}
