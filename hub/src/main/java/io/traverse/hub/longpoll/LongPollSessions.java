package io.traverse.hub.longpoll;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.ScheduledFuture;
import io.traverse.hub.link.LinkListener;
import io.traverse.logging.PeerWarnings;
import io.traverse.longpolling.LongPollProtocol;
import io.traverse.longpolling.SessionChannel;
import io.traverse.settings.LongPollSettings;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hub's long-poll sessions: opened by {@code POST /traverse/longpoll/v1/open} on
 * the link port, each the byte stream of one link. Finds a request's session by id and checks its
 * secret; expires idle sessions; remembers why recent sessions ended, so their node hears the
 * reason (410) rather than "unknown session" (404).
 */
public final class LongPollSessions {
    private static final Logger log = LoggerFactory.getLogger(LongPollSessions.class);
    /** Requests refused for their secret or node: anyone can send them, and a flood must not flood the log. */
    private final PeerWarnings refusals = new PeerWarnings(log);

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Ended sessions whose reason is kept for late requests. */
    private static final int ENDED_KEPT = 4096;

    private final LongPollLimits limits;
    private final EventLoopGroup loops;
    private final Consumer<Channel> linkInstaller;
    private final WriteBufferWaterMark waterMark;
    private final Map<String, LongPollSession> sessions = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final Map<String, String> ended = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > ENDED_KEPT;
        }
    };
    private final ScheduledFuture<?> sweeper;

    /**
     * @param loops         the hub's I/O loops (a session runs on the loop of the connection that opened it)
     * @param linkInstaller puts the link pipeline (codec and handshake) on a session's channel
     */
    public LongPollSessions(
            LongPollLimits limits,
            EventLoopGroup loops,
            Consumer<Channel> linkInstaller,
            WriteBufferWaterMark waterMark) {
        this.limits = limits;
        this.loops = loops;
        this.linkInstaller = linkInstaller;
        this.waterMark = waterMark;
        long period = Math.max(100, Math.min(1000, limits.expiry().toMillis() / 4));
        this.sweeper = loops.next().scheduleAtFixedRate(this::expire, period, period, TimeUnit.MILLISECONDS);
    }

    /** The HTTP handlers for a connection that starts with an HTTP request. */
    public void installHttp(ChannelPipeline pipeline) {
        pipeline.addLast(
                "longpoll-idle",
                new IdleStateHandler(0, 0, limits.maxServerTimeout().toSeconds() + 30, TimeUnit.SECONDS));
        pipeline.addLast("longpoll-http", new HttpServerCodec(4096, 8192, 64 * 1024));
        pipeline.addLast(
                "longpoll-keepalive",
                new io.netty.handler.codec.http.HttpServerKeepAliveHandler()); // honours Connection: close
        pipeline.addLast("longpoll-aggregator", new HttpObjectAggregator(LongPollProtocol.MAX_BODY));
        pipeline.addLast("longpoll-handler", new LongPollHttp(this));
    }

    public int openSessions() {
        return open.get();
    }

    public LongPollLimits limits() {
        return limits;
    }

    /** POST .../open: a new session and its link channel. */
    void open(ChannelHandlerContext ctx, FullHttpRequest request, Map<String, String> query) {
        String node = request.headers().get(LongPollProtocol.NODE);
        if (node == null || node.isEmpty() || node.length() > 64) {
            LongPollHttp.respond(
                    ctx,
                    HttpResponseStatus.BAD_REQUEST,
                    "open needs the " + LongPollProtocol.NODE + " header naming the node");
            return;
        }
        long wait;
        int batch;
        long timespan;
        try {
            wait = Math.min(limits.maxServerTimeout().toMillis(), LongPollHttp.number(query, "wait", 25_000));
            batch = (int) Math.min(
                    LongPollSettings.MAX_BATCH_SIZE,
                    Math.max(1, LongPollHttp.number(query, "batch", LongPollSettings.MAX_BATCH_SIZE)));
            timespan = Math.min(10_000, LongPollHttp.number(query, "timespan", 0));
        } catch (IllegalArgumentException e) {
            LongPollHttp.respond(ctx, HttpResponseStatus.BAD_REQUEST, e.getMessage());
            return;
        }
        if (open.incrementAndGet() > limits.maxSessions()) {
            open.decrementAndGet();
            LongPollHttp.respond(
                    ctx,
                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "the hub has " + limits.maxSessions() + " long-poll sessions open, its limit");
            return;
        }
        byte[] idBytes = new byte[16];
        byte[] secret = new byte[16];
        RANDOM.nextBytes(idBytes);
        RANDOM.nextBytes(secret);
        String id = HexFormat.of().formatHex(idBytes);
        InetSocketAddress peer = (InetSocketAddress) ctx.channel().remoteAddress();
        SessionChannel channel = new SessionChannel(
                (InetSocketAddress) ctx.channel().localAddress(),
                peer,
                limits.window(),
                limits.maxUnacknowledged(),
                waterMark);
        // The loop of the connection that opened the session: the node polls on that connection, so a poll's answer is
        // written by the thread that runs the session, and the sessions spread over the I/O loops as connections do.
        EventLoop loop = ctx.channel().eventLoop();
        LongPollSession session = new LongPollSession(this, id, secret, node, channel, loop, wait, batch, timespan);
        channel.pump(session);
        channel.attr(LinkListener.ADMITTED).set(session::admitted);
        sessions.put(id, session);
        // The link pipeline goes in as the channel registers, before it is active (registration may complete right
        // here, on
        // this loop). Requests for the session run on its loop after this: the link is in place before any of them.
        channel.pipeline().addLast(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                linkInstaller.accept(ch);
            }
        });
        loop.register(channel).addListener(f -> {
            if (!f.isSuccess()) {
                session.fail("cannot start the session's link: " + f.cause());
            }
        });
        log.debug("Long-poll session {} opened for node {} from {}", id, node, peer);
        LongPollHttp.respond(
                ctx,
                HttpResponseStatus.CREATED,
                io.netty.buffer.Unpooled.EMPTY_BUFFER,
                Map.of(
                        LongPollProtocol.SESSION, id,
                        LongPollProtocol.SECRET, HexFormat.of().formatHex(secret),
                        LongPollProtocol.SERVER_TIMEOUT, Long.toString(wait),
                        LongPollProtocol.BATCH_SIZE, Integer.toString(batch),
                        LongPollProtocol.BATCH_TIMESPAN, Long.toString(timespan)));
    }

    /**
     * The session a request names, after its checks; null when the request was answered already:
     * 404 unknown, 410 ended (with the reason), 403 wrong secret or another node.
     */
    LongPollSession authorize(ChannelHandlerContext ctx, FullHttpRequest request, String id) {
        LongPollSession s = sessions.get(id);
        if (s == null) {
            String reason;
            synchronized (ended) {
                reason = ended.get(id);
            }
            if (reason != null) {
                LongPollHttp.respond(ctx, HttpResponseStatus.GONE, reason);
            } else {
                LongPollHttp.respond(
                        ctx,
                        HttpResponseStatus.NOT_FOUND,
                        "no long-poll session " + LongPollHttp.shorten(id)
                                + " on this hub (never opened, or ended long ago)");
            }
            return null;
        }
        String secretText = request.headers().get(LongPollProtocol.SECRET);
        byte[] given;
        try {
            given = secretText == null ? new byte[0] : HexFormat.of().parseHex(secretText);
        } catch (IllegalArgumentException e) {
            given = new byte[0];
        }
        if (!MessageDigest.isEqual(given, s.secret)) {
            refusals.warn(
                    "Refused a request for long-poll session {} from {}: wrong session secret",
                    id,
                    ctx.channel().remoteAddress());
            LongPollHttp.respond(ctx, HttpResponseStatus.FORBIDDEN, "wrong session secret");
            return null;
        }
        String node = request.headers().get(LongPollProtocol.NODE);
        if (node == null || !node.equals(s.declaredNode)) {
            refusals.warn(
                    "Refused a request for long-poll session {} from {}: it names node {}, the session belongs to {}",
                    id,
                    ctx.channel().remoteAddress(),
                    node,
                    s.declaredNode);
            LongPollHttp.respond(ctx, HttpResponseStatus.FORBIDDEN, "the session belongs to another node");
            return null;
        }
        s.touched();
        return s;
    }

    /** A session ended: its reason stays for late requests. */
    void ended(LongPollSession s, String reason) {
        if (sessions.remove(s.id, s)) {
            open.decrementAndGet();
            synchronized (ended) {
                ended.put(s.id, reason);
            }
            log.debug("Long-poll session {} ended: {}", s.id, reason);
        }
    }

    private void expire() {
        long limit = limits.expiry().toNanos();
        for (LongPollSession s : sessions.values()) {
            s.loop.execute(() -> {
                if (s.idleNanos(System.nanoTime()) > limit) {
                    s.fail("expired: no request for " + limits.expiry().toMillis() + " ms");
                }
            });
        }
    }

    /** Ends every session (the hub is closing). */
    public void close() {
        sweeper.cancel(false);
        for (LongPollSession s : sessions.values()) {
            s.loop.execute(() -> s.fail("the hub is shutting down"));
        }
    }
}
