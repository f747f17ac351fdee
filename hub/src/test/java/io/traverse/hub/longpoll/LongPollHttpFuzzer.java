package io.traverse.hub.longpoll;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpResponse;
import io.traverse.longpolling.LongPollProtocol;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Coverage-guided fuzzing of the hub's long-poll endpoint with the pipeline
 * {@link LongPollSessions#installHttp} installs, on an embedded connection, its sessions' links
 * echoing what they get. The request bytes arrive in reads that end at each 0xFF byte of the input
 * (a byte no request needs); once a
 * session is open, {@code {s}} and {@code {k}} in later reads stand for its id and secret, so that
 * the fuzzer reaches the requests of a live session. Whatever arrives, every answer is one of the
 * endpoint's own statuses, no more sessions open than the limit, and the endpoint never closes the
 * connection without an answer (which is what an exception in its handler would do).
 */
class LongPollHttpFuzzer {
    private static final Set<Integer> STATUSES =
            Set.of(100, 200, 201, 204, 400, 403, 404, 405, 409, 410, 413, 417, 431, 503);
    private static final LongPollLimits LIMITS =
            new LongPollLimits(Duration.ofSeconds(30), 4L * 1024 * 1024, Duration.ofSeconds(60), 2);

    /** Echoes every byte back: a link that answers. */
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    /** Notes every response written on the open connection, and the id and secret of a session it opened. */
    private static final class Answers extends ChannelOutboundHandlerAdapter {
        final List<Integer> statuses = new ArrayList<>();
        String session;
        String secret;

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof HttpResponse response && ctx.channel().isActive()) {
                statuses.add(response.status().code());
                if (response.headers().contains(LongPollProtocol.SESSION)) {
                    session = response.headers().get(LongPollProtocol.SESSION);
                    secret = response.headers().get(LongPollProtocol.SECRET);
                }
            }
            ctx.write(msg, promise);
        }
    }

    /** A connection from a node's address, as the hub's sockets have. */
    private static final class Connection extends EmbeddedChannel {
        @Override
        protected SocketAddress localAddress0() {
            return new InetSocketAddress("198.18.0.1", 17000);
        }

        @Override
        protected SocketAddress remoteAddress0() {
            return new InetSocketAddress("198.18.0.2", 40000);
        }
    }

    @FuzzTest(maxDuration = "10m")
    // libFuzzer's dictionary syntax: CR LF as \x0d\x0a
    @DictionaryEntries({
        "POST ",
        "GET ",
        "DELETE ",
        "/traverse/longpoll/v1/open",
        "/traverse/longpoll/v1/{s}",
        "/up?seq=",
        "/down?ack=",
        "&wait=",
        "?batch=",
        "&timespan=",
        " HTTP/1.1\\x0d\\x0a",
        "X-Traverse-Node: node-a\\x0d\\x0a",
        "X-Traverse-Secret: {k}\\x0d\\x0a",
        "Content-Length: ",
        "Connection: close\\x0d\\x0a",
        "\\x0d\\x0a\\x0d\\x0a"
    })
    void requests(byte[] input) {
        Connection connection = new Connection();
        Answers answers = new Answers();
        LongPollSessions sessions = new LongPollSessions(
                LIMITS,
                connection.eventLoop(),
                link -> link.pipeline().addLast(new Echo()),
                new WriteBufferWaterMark(32 * 1024, 64 * 1024));
        sessions.installHttp(connection.pipeline());
        connection.pipeline().addAfter("longpoll-http", "answers", answers);
        try {
            for (int from = 0, end; from < input.length && connection.isOpen(); from = end + 1) {
                end = from;
                while (end < input.length && input[end] != (byte) 0xFF) {
                    end++;
                }
                String read = new String(input, from, end - from, StandardCharsets.ISO_8859_1);
                if (answers.session != null) {
                    read = read.replace("{s}", answers.session).replace("{k}", answers.secret);
                }
                // writeInbound runs the due tasks and timers itself, one after another as an event loop does. Not
                // runPendingTasks(): called from outside, it lets each write on the connection run the queued tasks
                // nested inside that write, which no event loop does; a task that writes a response then re-enters
                // HttpObjectEncoder mid-write, and its reused output list sends one buffer twice.
                connection.writeInbound(Unpooled.copiedBuffer(read, StandardCharsets.ISO_8859_1));
                assertThat(sessions.openSessions()).isLessThanOrEqualTo(LIMITS.maxSessions());
            }
            assertThat(answers.statuses).allMatch(STATUSES::contains, "a status of the endpoint's");
            if (!connection.isOpen()) {
                assertThat(answers.statuses).as("closed with an answer").isNotEmpty();
            }
        } finally {
            sessions.close();
            connection.finishAndReleaseAll(); // runs the sessions' last tasks first, unnested (see above)
        }
    }
}
