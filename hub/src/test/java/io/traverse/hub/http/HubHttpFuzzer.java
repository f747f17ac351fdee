package io.traverse.hub.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpServerCodec;
import io.traverse.hub.HubStatus;
import io.traverse.identity.NodeId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Coverage-guided fuzzing of the hub's HTTP endpoint (metrics, status, dashboard and its event
 * stream) with the pipeline {@link HubHttpEndpoint} installs, on an embedded channel, the request
 * bytes arriving in reads that end at each 0xFF byte of the input (a byte no request needs). Whatever arrives, every answer is one of the
 * endpoint's own statuses, its handler answers at most one request, and the endpoint never closes the
 * connection without an answer (which is what an exception in its handler would do).
 */
class HubHttpFuzzer {
    private static final Set<Integer> STATUSES = Set.of(100, 200, 400, 404, 405, 413, 417, 431, 503);
    private static final StatusSource SOURCE = new StatusSource() {
        @Override
        public CompletionStage<HubStatus> status() {
            return CompletableFuture.completedFuture(new HubStatus(
                    NodeId.of("fuzz-hub"),
                    "fuzz-hub",
                    1,
                    List.of("198.18.0.1:17000"),
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
            return "# HELP traverse_up 1\ntraverse_up 1\n";
        }

        @Override
        public HubTraffic traffic() {
            return new HubTraffic(0, 0, Map.of(), 0);
        }
    };
    /** Reads of the input: each ends before the next 0xFF byte, or at the end of the input. */
    static final class Reads {
        static int end(byte[] input, int from) {
            int end = from;
            while (end < input.length && input[end] != (byte) 0xFF) {
                end++;
            }
            return end;
        }
    }

    /** Ticks only when its time is advanced, which this test never does. */
    private static final EmbeddedChannel TIMER = new EmbeddedChannel();

    private static final DashboardFeed FEED = new DashboardFeed(SOURCE, Runnable::run, TIMER.eventLoop());

    /** Notes the status of every response the endpoint writes on the open connection. */
    private static final class Answers extends ChannelOutboundHandlerAdapter {
        final List<Integer> statuses = new ArrayList<>();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof HttpResponse response && ctx.channel().isActive()) {
                statuses.add(response.status().code());
            }
            ctx.write(msg, promise);
        }
    }

    @FuzzTest(maxDuration = "10m")
    // libFuzzer's dictionary syntax: CR LF as \x0d\x0a
    @DictionaryEntries({
        "GET ",
        "HEAD ",
        " HTTP/1.1\\x0d\\x0a",
        "/metrics",
        "/status",
        "/dashboard",
        "/dashboard/events",
        "Content-Length: ",
        "Transfer-Encoding: chunked\\x0d\\x0a",
        "Expect: 100-continue\\x0d\\x0a",
        "\\x0d\\x0a\\x0d\\x0a"
    })
    void request(byte[] input) {
        Answers answers = new Answers();
        EmbeddedChannel connection = new EmbeddedChannel(
                new HttpServerCodec(4096, HubHttpEndpoint.MAX_REQUEST_BYTES, HubHttpEndpoint.MAX_REQUEST_BYTES),
                answers,
                new HttpObjectAggregator(HubHttpEndpoint.MAX_REQUEST_BYTES),
                new HubHttpHandler(SOURCE, Runnable::run, FEED));
        try {
            for (int from = 0; from < input.length && connection.isOpen(); ) {
                int end = Reads.end(input, from);
                connection.writeInbound(Unpooled.wrappedBuffer(input, from, end - from));
                connection.runPendingTasks();
                from = end + 1;
            }
            // Netty's aggregator answers some requests itself (100, 413, 417) before the handler sees them.
            List<Integer> answered = answers.statuses.stream()
                    .filter(status -> status != 100 && status != 413 && status != 417)
                    .toList();
            assertThat(answers.statuses).allMatch(STATUSES::contains, "a status of the endpoint's");
            assertThat(answered).as("one request per connection").hasSizeLessThanOrEqualTo(1);
            if (!connection.isOpen()) {
                assertThat(answers.statuses).as("closed with an answer").isNotEmpty();
            }
        } finally {
            connection.finishAndReleaseAll();
        }
    }
}
