package io.traverse.hub.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Requests the endpoint must refuse in words, on the pipeline {@link HubHttpEndpoint} installs. */
class HubHttpHandlerTest {
    private final EmbeddedChannel timer = new EmbeddedChannel();
    private final StatusSource source = new StatusSource() {
        @Override
        public CompletableFuture<io.traverse.hub.HubStatus> status() {
            return CompletableFuture.failedFuture(new IllegalStateException("not in this test"));
        }

        @Override
        public String metrics() {
            return "";
        }

        @Override
        public HubTraffic traffic() {
            return new HubTraffic(0, 0, Map.of(), 0);
        }
    };
    private final DashboardFeed feed = new DashboardFeed(source, Runnable::run, timer.eventLoop());

    @AfterEach
    void close() {
        feed.close();
        timer.finishAndReleaseAll();
    }

    /** A bad escape in the path failed its decoding, which closed the connection unanswered. */
    @Test
    void aMalformedEscapeInThePathGets400() {
        for (String target : new String[] {"/%zz", "/metrics%", "/status%4"}) {
            assertThat(answer("GET " + target + " HTTP/1.1\r\nHost: hub\r\n\r\n"))
                    .as(target)
                    .startsWith("HTTP/1.1 400 Bad Request\r\n")
                    .contains("malformed request target");
        }
    }

    private String answer(String request) {
        EmbeddedChannel connection = new EmbeddedChannel(
                new HttpServerCodec(4096, HubHttpEndpoint.MAX_REQUEST_BYTES, HubHttpEndpoint.MAX_REQUEST_BYTES),
                new HttpObjectAggregator(HubHttpEndpoint.MAX_REQUEST_BYTES),
                new HubHttpHandler(source, Runnable::run, feed));
        try {
            connection.writeInbound(Unpooled.copiedBuffer(request, StandardCharsets.ISO_8859_1));
            StringBuilder out = new StringBuilder();
            for (ByteBuf b = connection.readOutbound(); b != null; b = connection.readOutbound()) {
                out.append(b.toString(StandardCharsets.ISO_8859_1));
                b.release();
            }
            return out.toString();
        } finally {
            connection.finishAndReleaseAll();
        }
    }
}
