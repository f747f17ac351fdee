package io.traverse.hub.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCountUtil;
import io.traverse.hub.HubStatus;
import io.traverse.identity.NodeId;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The dashboard's feed on channels whose time and writability the test sets: a view per tick,
 * at most {@value DashboardFeed#MAX_STREAMS} streams, a client that reads nothing skipped and then
 * closed, nothing queued for it meanwhile.
 */
class DashboardFeedTest {
    private final AtomicLong relayed = new AtomicLong();
    private final AtomicLong clock = new AtomicLong();
    private final EmbeddedChannel timer = new EmbeddedChannel();
    private final List<EmbeddedChannel> pages = new ArrayList<>();
    private DashboardFeed feed;
    private volatile String hubName = "feed-hub";

    @AfterEach
    void close() {
        if (feed != null) {
            feed.close();
        }
        pages.forEach(EmbeddedChannel::finishAndReleaseAll);
        timer.finishAndReleaseAll();
    }

    @Test
    void eachStreamGetsAViewPerTickWithTheRelayRate() {
        startFeed();
        EmbeddedChannel page = openPage();
        HttpResponse head = page.readOutbound();
        assertThat(head.status()).isEqualTo(HttpResponseStatus.OK);
        assertThat(head.headers().get("content-type")).isEqualTo("text/event-stream; charset=utf-8");
        assertThat(nextText(page)).isEqualTo("retry: 2000\n\n");

        relayed.addAndGet(1_000_000);
        tick();
        String view = nextText(page);
        assertThat(view)
                .startsWith("event: view\ndata: {")
                .endsWith("}\n\n")
                .contains("\"hubName\":\"feed-hub\"")
                .contains("\"totalPerSecond\":2000000"); // a megabyte in half a second
        tick();
        assertThat(nextText(page)).contains("\"totalPerSecond\":0");
    }

    @Test
    void aPageOpenedAfterNobodyWatchedGetsNoStaleView() {
        startFeed();
        EmbeddedChannel first = openPage();
        assertThat(first.<Object>readOutbound()).isInstanceOf(HttpResponse.class);
        assertThat(nextText(first)).isEqualTo("retry: 2000\n\n");
        tick();
        assertThat(nextText(first)).startsWith("event: view").contains("\"hubName\":\"feed-hub\"");
        EmbeddedChannel second = openPage();
        assertThat(second.<Object>readOutbound()).isInstanceOf(HttpResponse.class);
        assertThat(nextText(second))
                .as("a page opened beside another starts from its current view")
                .contains("\"hubName\":\"feed-hub\"");

        first.close();
        second.close();
        hubName = "renamed-hub"; // what the hub looks like now; no view is made while nobody watches
        tick();
        tick();
        EmbeddedChannel later = openPage();
        assertThat(later.<Object>readOutbound()).isInstanceOf(HttpResponse.class);
        assertThat(nextText(later))
                .as("only the stream's opening: the last view made is from before")
                .isEqualTo("retry: 2000\n\n");
        tick();
        assertThat(nextText(later)).contains("\"hubName\":\"renamed-hub\"");
    }

    @Test
    void aNinthStreamIsRefusedUntilOneCloses() {
        startFeed();
        for (int i = 0; i < DashboardFeed.MAX_STREAMS; i++) {
            drain(openPage());
        }
        EmbeddedChannel refused = openPage();
        FullHttpResponse answer = refused.readOutbound();
        assertThat(answer.status()).isEqualTo(HttpResponseStatus.SERVICE_UNAVAILABLE);
        assertThat(answer.content().toString(StandardCharsets.UTF_8)).contains("at most 8");
        answer.release();
        assertThat(refused.isOpen()).isFalse();
        assertThat(feed.openStreams()).isEqualTo(DashboardFeed.MAX_STREAMS);

        pages.get(0).close();
        assertThat(feed.openStreams()).isEqualTo(DashboardFeed.MAX_STREAMS - 1);
        HttpResponse accepted = openPage().readOutbound();
        assertThat(accepted.status()).isEqualTo(HttpResponseStatus.OK);
    }

    @Test
    void aClientThatReadsNothingIsSkippedThenClosed() {
        startFeed();
        EmbeddedChannel stalled = openPage();
        EmbeddedChannel reading = openPage();
        drain(stalled);
        drain(reading);
        stalled.unsafe().outboundBuffer().setUserDefinedWritability(1, false);
        for (int i = 1; i < DashboardFeed.STALLED_TICKS; i++) {
            tick();
            assertThat(stalled.<Object>readOutbound())
                    .as("nothing queued for a client whose buffer is full")
                    .isNull();
            assertThat(nextText(reading)).startsWith("event: view");
        }
        assertThat(stalled.isOpen()).isTrue();
        tick();
        assertThat(stalled.isOpen())
                .as("closed after %d views it could not take", DashboardFeed.STALLED_TICKS)
                .isFalse();
        assertThat(reading.isOpen()).isTrue();
        assertThat(feed.openStreams()).isEqualTo(1);
    }

    private void startFeed() {
        timer.freezeTime();
        feed = new DashboardFeed(
                new StatusSource() {
                    @Override
                    public CompletionStage<HubStatus> status() {
                        return CompletableFuture.completedFuture(new HubStatus(
                                NodeId.of("feed-hub"),
                                hubName,
                                1,
                                List.of(),
                                List.of(),
                                Map.of(),
                                Map.of(),
                                List.of(),
                                Map.of(),
                                0,
                                0,
                                Map.of(),
                                null,
                                List.of()));
                    }

                    @Override
                    public String metrics() {
                        return "";
                    }

                    @Override
                    public HubTraffic traffic() {
                        return new HubTraffic(relayed.get(), 0, Map.of(), 0);
                    }
                },
                Runnable::run,
                timer.eventLoop(),
                clock::get);
        tick(); // the first sample: rates are growth since the one before
    }

    private EmbeddedChannel openPage() {
        EmbeddedChannel page = new EmbeddedChannel(new ChannelInboundHandlerAdapter());
        pages.add(page);
        feed.open(page.pipeline().firstContext());
        page.runPendingTasks();
        return page;
    }

    private void tick() {
        timer.advanceTimeBy(DashboardFeed.INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(DashboardFeed.INTERVAL_MILLIS));
        timer.runScheduledPendingTasks();
        pages.forEach(EmbeddedChannel::runPendingTasks);
    }

    private static String nextText(EmbeddedChannel page) {
        HttpContent content = page.readOutbound();
        assertThat(content).as("a chunk of the stream").isNotNull();
        try {
            return content.content().toString(StandardCharsets.UTF_8);
        } finally {
            content.release();
        }
    }

    private static void drain(EmbeddedChannel page) {
        for (Object o; (o = page.readOutbound()) != null; ) {
            ReferenceCountUtil.release(o);
        }
    }
}
