package io.traverse.hub.longpoll;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Requests the long-poll endpoint must refuse in words, on the pipeline {@link LongPollSessions#installHttp} installs. */
class LongPollHttpTest {
    /**
     * Found by LongPollHttpFuzzer: the query was decoded before the request's checks, so a bad escape
     * in it closed the connection unanswered.
     */
    @Test
    void aMalformedEscapeInThePathOrQueryGets400AndTheConnectionCloses() {
        for (String target : new String[] {
            "/traverse/longpoll/v1/open?wa%t=1000",
            "/traverse/longpoll/v1/open?wait=%",
            "/traverse/longpoll/v1/%zz/down?ack=0",
            "/elsewhere?x=%g0"
        }) {
            EmbeddedChannel connection = new EmbeddedChannel();
            LongPollSessions sessions = new LongPollSessions(
                    new LongPollLimits(Duration.ofSeconds(30), 4L * 1024 * 1024, Duration.ofSeconds(60), 2),
                    connection.eventLoop(),
                    link -> {},
                    new WriteBufferWaterMark(32 * 1024, 64 * 1024));
            sessions.installHttp(connection.pipeline());
            try {
                connection.writeInbound(Unpooled.copiedBuffer(
                        "POST " + target + " HTTP/1.1\r\nX-Traverse-Node: node-a\r\nContent-Length: 0\r\n\r\n",
                        StandardCharsets.ISO_8859_1));
                StringBuilder out = new StringBuilder();
                for (ByteBuf b = connection.readOutbound(); b != null; b = connection.readOutbound()) {
                    out.append(b.toString(StandardCharsets.ISO_8859_1));
                    b.release();
                }
                assertThat(out.toString())
                        .as(target)
                        .startsWith("HTTP/1.1 400 Bad Request\r\n")
                        .contains("malformed request target");
                assertThat(connection.isOpen()).as(target).isFalse();
            } finally {
                sessions.close();
                connection.finishAndReleaseAll();
            }
        }
    }
}
