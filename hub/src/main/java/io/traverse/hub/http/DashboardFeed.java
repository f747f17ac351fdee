package io.traverse.hub.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard's live feed: a Server-Sent Events stream per open page, each carrying a
 * {@link DashboardView} every {@value #INTERVAL_MILLIS} ms. One view is made per tick for all
 * streams (status from the state loop, JSON on the worker). Bounded: at most
 * {@value #MAX_STREAMS} streams (more are refused with 503); a stream whose client does not
 * read is skipped while its socket buffer is full (the next view supersedes the one skipped),
 * and closed when it has not read for {@value #STALLED_TICKS} ticks.
 */
final class DashboardFeed {
    static final int MAX_STREAMS = 8;
    static final long INTERVAL_MILLIS = 500;
    static final int STALLED_TICKS = 20;
    /** How long an EventSource waits before it reconnects to a stream that ended. */
    private static final int RETRY_MILLIS = 2000;

    private static final AttributeKey<Integer> SKIPPED = AttributeKey.valueOf("traverse.dashboard.skipped");
    private static final Logger log = LoggerFactory.getLogger(DashboardFeed.class);

    private final StatusSource source;
    private final Executor worker;
    private final Map<Channel, Boolean> streams = new ConcurrentHashMap<>();
    /** Streams open or being opened: taken before a stream opens, so that loops opening streams at once cannot pass the limit. */
    private final AtomicInteger places = new AtomicInteger();

    private final RelayThroughput throughput = new RelayThroughput();
    private final AtomicBoolean rendering = new AtomicBoolean();
    private final ScheduledFuture<?> ticker;
    private final LongSupplier nanoClock;
    private volatile String latest;

    DashboardFeed(StatusSource source, Executor worker, EventExecutor timer) {
        this(source, worker, timer, System::nanoTime);
    }

    /** @param nanoClock the time the relay rate is measured by */
    DashboardFeed(StatusSource source, Executor worker, EventExecutor timer, LongSupplier nanoClock) {
        this.source = source;
        this.worker = worker;
        this.nanoClock = nanoClock;
        // Ticks run always, so that the throughput is a rate over one tick even on the first view a page gets.
        this.ticker = timer.scheduleAtFixedRate(this::tick, INTERVAL_MILLIS, INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Answers GET /dashboard/events: the stream's headers, then the latest view if it is current (another page is open), then one per tick. On the channel's loop. */
    void open(ChannelHandlerContext ctx) {
        Channel channel = ctx.channel();
        if (places.incrementAndGet() > MAX_STREAMS) {
            places.decrementAndGet();
            HubHttpHandler.respond(
                    ctx,
                    HttpResponseStatus.SERVICE_UNAVAILABLE,
                    "text/plain; charset=utf-8",
                    "too many dashboards open on this hub (at most " + MAX_STREAMS + ")\n");
            return;
        }
        // The client sends nothing more on a stream: its idleness is not a fault.
        if (channel.pipeline().get(ReadTimeoutHandler.class) != null) {
            channel.pipeline().remove(ReadTimeoutHandler.class);
        }
        HttpResponse response = new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
        response.headers().set(HttpHeaderNames.CACHE_CONTROL, HttpHeaderValues.NO_STORE);
        response.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        response.headers().set("X-Content-Type-Options", "nosniff");
        ctx.write(response);
        StringBuilder first = new StringBuilder("retry: ").append(RETRY_MILLIS).append("\n\n");
        String view = latest;
        if (view != null) {
            first.append(view);
        }
        ctx.writeAndFlush(content(first.toString()));
        channel.attr(SKIPPED).set(0);
        streams.put(channel, Boolean.TRUE);
        channel.closeFuture().addListener(f -> {
            streams.remove(channel);
            places.decrementAndGet();
        });
    }

    int openStreams() {
        return streams.size();
    }

    private void tick() {
        HubTraffic traffic = source.traffic();
        RelayThroughput.Rate rate = throughput.sample(nanoClock.getAsLong(), traffic);
        if (streams.isEmpty()) {
            latest = null; // no longer kept up to date: a page opened later would start from a stale picture
            return;
        }
        if (!rendering.compareAndSet(false, true)) {
            return; // the last view is still being made: this tick's goes
        }
        source.status().whenComplete((status, failure) -> {
            if (failure != null) {
                rendering.set(false);
                return;
            }
            try {
                worker.execute(() -> {
                    try {
                        String event = "event: view\ndata: "
                                + DashboardView.of(status, traffic, rate, System.currentTimeMillis())
                                        .toJson() + "\n\n";
                        latest = event;
                        byte[] encoded = event.getBytes(StandardCharsets.UTF_8); // once per view, not once per page
                        streams.keySet().forEach(channel -> channel.eventLoop().execute(() -> send(channel, encoded)));
                    } catch (RuntimeException e) {
                        log.warn("Dashboard view could not be made: {}", e.toString());
                    } finally {
                        rendering.set(false);
                    }
                });
            } catch (RejectedExecutionException busy) {
                rendering.set(false);
            }
        });
    }

    private void send(Channel channel, byte[] event) {
        if (!channel.isActive()) {
            return;
        }
        if (!channel.isWritable()) {
            int skipped = channel.attr(SKIPPED).get() + 1;
            channel.attr(SKIPPED).set(skipped);
            if (skipped >= STALLED_TICKS) {
                log.debug(
                        "Closing dashboard stream to {}: it has read nothing for {} views",
                        channel.remoteAddress(),
                        skipped);
                channel.close();
            }
            return;
        }
        channel.attr(SKIPPED).set(0);
        // Every page's buffer wraps the one encoded view (read-only use, indices of its own): no copy per page.
        channel.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(event)))
                .addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
    }

    private static DefaultHttpContent content(String text) {
        return new DefaultHttpContent(Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
    }

    void close() {
        ticker.cancel(false);
        streams.keySet().forEach(Channel::close);
    }
}
