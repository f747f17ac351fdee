package io.traverse.hublink;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.traverse.identity.NodeId;
import io.traverse.settings.LongPollSettings;
import io.traverse.spi.LongPollTransport;
import java.util.Iterator;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;

/** Finds the {@link LongPollTransport} on the class path; without one, a long-poll link fails with a line that says why. */
final class LongPollTransports {
    private LongPollTransports() {}

    /** Looked up on first use: most links never need a session, and the class path does not change. */
    private static final class Found {
        static final LongPollTransport TRANSPORT = load();
    }

    /** The transport of this class path, found once, when a link first needs a session. */
    static LongPollTransport shared() {
        return Found.TRANSPORT;
    }

    static LongPollTransport load() {
        Iterator<LongPollTransport> found = ServiceLoader.load(
                        LongPollTransport.class, LongPollTransports.class.getClassLoader())
                .iterator();
        return found.hasNext() ? found.next() : new Missing();
    }

    private static final class Missing implements LongPollTransport {
        @Override
        public CompletableFuture<Session> open(
                EventLoop loop,
                Class<? extends Channel> channelClass,
                Way way,
                NodeId node,
                LongPollSettings settings,
                long timeoutMillis) {
            return CompletableFuture.failedFuture(new HubLinkException(
                    "cannot open a long-poll session with hub " + ProxyRoute.authority(way.hub())
                            + ": no long-poll transport is on the class path (it comes with traverse-longpoll)",
                    false));
        }
    }
}
