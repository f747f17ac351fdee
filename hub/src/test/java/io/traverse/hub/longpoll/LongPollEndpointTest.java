package io.traverse.hub.longpoll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.traverse.longpolling.LongPollProtocol;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The hub's long-poll endpoint on its own, with simple stand-ins for the link on each
 * session's channel: bytes go up and come back in order; a poll repeated with the same
 * acknowledgement gets the same bytes again; malformed requests, unknown sessions, wrong secrets
 * or nodes, oversized bodies and out-of-range offsets are refused with their status codes while
 * another session keeps working; a session that holds too many unacknowledged bytes, or gets no
 * request for its expiry time, ends with 410 and the reason.
 */
class LongPollEndpointTest {
    private static final String NODE = "node-a";
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final HttpClient http =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private LongPollSessions sessions;
    private Channel server;
    private URI base;

    /** Echoes every byte back: the stand-in for a link that answers. */
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg);
        }
    }

    /** Writes 16 MiB at once, ignoring writability: a link gone wild. */
    private static final class Flood extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            for (int i = 0; i < 256; i++) {
                ctx.write(Unpooled.wrappedBuffer(new byte[64 * 1024]));
            }
            ctx.flush();
        }
    }

    /** A link that authenticates another node than the one that opened the session (as AcceptorHandshake reports it). */
    private static final class Impostor extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            ctx.channel()
                    .attr(io.traverse.hub.link.LinkListener.ADMITTED)
                    .get()
                    .accept(io.traverse.identity.NodeId.of("node-b"));
            ctx.fireChannelActive();
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            if (ctx.channel().isActive()) {
                channelActive(ctx);
            }
        }
    }

    private void start(LongPollLimits limits, Supplier<ChannelHandler> link) throws Exception {
        sessions = new LongPollSessions(
                limits,
                group,
                ch -> ch.pipeline().addLast(link.get()),
                new WriteBufferWaterMark(256 * 1024, 1024 * 1024));
        server = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        sessions.installHttp(ch.pipeline());
                    }
                })
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .sync()
                .channel();
        base = URI.create("http://127.0.0.1:" + ((InetSocketAddress) server.localAddress()).getPort()
                + LongPollProtocol.BASE + "/");
    }

    @AfterEach
    void stop() throws Exception {
        if (sessions != null) {
            sessions.close();
        }
        if (server != null) {
            server.close().sync();
        }
        group.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).sync();
    }

    private record Session(String id, String secret) {}

    private Session open(String node) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(base.resolve("open?wait=300"))
                        .header(LongPollProtocol.NODE, node)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.headers().firstValue(LongPollProtocol.SERVER_TIMEOUT)).hasValue("300");
        return new Session(
                r.headers().firstValue(LongPollProtocol.SESSION).orElseThrow(),
                r.headers().firstValue(LongPollProtocol.SECRET).orElseThrow());
    }

    private HttpRequest.Builder request(Session s, String path) {
        return HttpRequest.newBuilder(base.resolve(s.id() + "/" + path))
                .header(LongPollProtocol.NODE, NODE)
                .header(LongPollProtocol.SECRET, s.secret());
    }

    private HttpResponse<byte[]> up(Session s, long seq, byte[] body) throws Exception {
        return http.send(
                request(s, "up?seq=" + seq)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> down(Session s, long ack) throws Exception {
        return http.send(
                request(s, "down?ack=" + ack + "&wait=300").GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static String text(HttpResponse<byte[]> r) {
        return new String(r.body(), StandardCharsets.UTF_8);
    }

    /** Sends raw bytes and returns the status line of the answer. */
    private String raw(String request) throws Exception {
        try (Socket s =
                new Socket(InetAddress.getLoopbackAddress(), ((InetSocketAddress) server.localAddress()).getPort())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) >= 0 && c != '\r') {
                line.append((char) c);
            }
            return line.toString();
        }
    }

    @Test
    void bytesGoUpAndComeBackInOrderAndARepeatedRequestIsIdempotent() throws Exception {
        start(LongPollLimits.defaults(), Echo::new);
        Session s = open(NODE);
        assertThat(up(s, 0, "hello ".getBytes(StandardCharsets.US_ASCII))
                        .headers()
                        .firstValue(LongPollProtocol.RECEIVED))
                .hasValue("6");
        // The same request again (its answer was lost, say), overlapping with what is new: only the new part counts.
        assertThat(up(s, 0, "hello world".getBytes(StandardCharsets.US_ASCII))
                        .headers()
                        .firstValue(LongPollProtocol.RECEIVED))
                .hasValue("11");
        HttpResponse<byte[]> first = down(s, 0);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue(LongPollProtocol.OFFSET)).hasValue("0");
        // The echo may come back in one answer or two: collect to 11 bytes.
        StringBuilder got = new StringBuilder(text(first));
        while (got.length() < 11) {
            got.append(text(down(s, got.length())));
        }
        assertThat(got.toString()).isEqualTo("hello world");
        // A poll that repeats an acknowledgement gets the same bytes again (the answer was lost): nothing is dropped
        // before an ack.
        assertThat(text(down(s, 6))).isEqualTo("world");
        // Acknowledged everything: an empty answer once the (capped) wait is over.
        HttpResponse<byte[]> empty = down(s, 11);
        assertThat(empty.statusCode()).isEqualTo(200);
        assertThat(empty.body()).isEmpty();
        // Offsets outside what the session holds: 409 with the reason.
        HttpResponse<byte[]> behind = down(s, 3);
        assertThat(behind.statusCode()).isEqualTo(409);
        assertThat(text(behind)).contains("acknowledges offset 3").contains("holds 11-11");
        HttpResponse<byte[]> gap = up(s, 20, new byte[1]);
        assertThat(gap.statusCode()).isEqualTo(409);
        assertThat(text(gap)).contains("has received 11 bytes");
        // DELETE ends it; later requests hear why.
        assertThat(http.send(request(s, "").DELETE().build(), HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(204);
        HttpResponse<byte[]> gone = down(s, 11);
        assertThat(gone.statusCode()).isEqualTo(410);
        assertThat(text(gone)).contains("the node ended the session");
        assertThat(sessions.openSessions()).isZero();
    }

    @Test
    void badRequestsAreRefusedWithTheirStatusCodesAndAnotherSessionKeepsWorking() throws Exception {
        start(LongPollLimits.defaults(), Echo::new);
        Session s = open(NODE);
        Session other = open(NODE);

        assertThat(raw("GET /traverse/longpoll/v1/open HTTX/9.9\r\nHost: hub\r\n\r\n"))
                .startsWith("HTTP/1.1 400");
        assertThat(raw("POST " + LongPollProtocol.BASE + "/" + s.id()
                        + "/up?seq=0 HTTP/1.1\r\nHost: hub\r\nContent-Length: 3\r\n" + LongPollProtocol.SECRET + ": "
                        + s.secret() + "\r\n" + LongPollProtocol.NODE + ": " + NODE
                        + "\r\nContent-Length: 5\r\n\r\nabc"))
                .as("two different Content-Lengths")
                .startsWith("HTTP/1.1 400");
        assertThat(raw("GET " + LongPollProtocol.BASE + "/" + s.id() + "/down?ack=zero HTTP/1.1\r\nHost: hub\r\n\r\n"))
                .startsWith("HTTP/1.1 400");
        assertThat(raw("GET /metrics HTTP/1.1\r\nHost: hub\r\n\r\n")).startsWith("HTTP/1.1 404");
        assertThat(raw("GET " + LongPollProtocol.OPEN + " HTTP/1.1\r\nHost: hub\r\n\r\n"))
                .startsWith("HTTP/1.1 405");
        assertThat(raw("POST " + LongPollProtocol.OPEN + " HTTP/1.1\r\nHost: hub\r\nContent-Length: 0\r\n\r\n"))
                .as("open without a node")
                .startsWith("HTTP/1.1 400");

        HttpResponse<byte[]> unknown = down(new Session("0".repeat(32), s.secret()), 0);
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(text(unknown)).contains("no long-poll session");
        HttpResponse<byte[]> stolen = down(new Session(s.id(), other.secret()), 0);
        assertThat(stolen.statusCode()).as("another session's secret").isEqualTo(403);
        assertThat(text(stolen)).contains("wrong session secret");
        HttpResponse<byte[]> otherNode = http.send(
                HttpRequest.newBuilder(base.resolve(s.id() + "/down?ack=0&wait=0"))
                        .header(LongPollProtocol.NODE, "node-b")
                        .header(LongPollProtocol.SECRET, s.secret())
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(otherNode.statusCode()).isEqualTo(403);
        assertThat(text(otherNode)).contains("belongs to another node");
        HttpResponse<byte[]> oversized = up(s, 0, new byte[LongPollProtocol.MAX_BODY + 1]);
        assertThat(oversized.statusCode()).isEqualTo(413);

        // Nothing of that touched either session.
        assertThat(up(other, 0, "still here".getBytes(StandardCharsets.US_ASCII))
                        .statusCode())
                .isEqualTo(200);
        StringBuilder got = new StringBuilder();
        while (got.length() < 10) {
            got.append(text(down(other, got.length())));
        }
        assertThat(got.toString()).isEqualTo("still here");
        assertThat(up(s, 0, "ok".getBytes(StandardCharsets.US_ASCII)).statusCode())
                .isEqualTo(200);
        assertThat(text(down(s, 0))).isEqualTo("ok");
        assertThat(sessions.openSessions()).isEqualTo(2);
    }

    @Test
    void aSessionWhoseLinkAuthenticatesAnotherNodeFailsWith410() throws Exception {
        start(LongPollLimits.defaults(), Impostor::new);
        Session s = open(NODE);
        await().atMost(Duration.ofSeconds(10)).until(() -> sessions.openSessions() == 0);
        HttpResponse<byte[]> gone = down(s, 0);
        assertThat(gone.statusCode()).isEqualTo(410);
        assertThat(text(gone))
                .contains("the link authenticated node node-b but the session was opened for node node-a");
    }

    @Test
    void aSessionHoldingTooManyUnacknowledgedBytesFailsWith410AndTheReason() throws Exception {
        start(LongPollLimits.defaults(), Flood::new);
        Session s = open(NODE);
        await().atMost(Duration.ofSeconds(10)).until(() -> sessions.openSessions() == 0);
        HttpResponse<byte[]> gone = down(s, 0);
        assertThat(gone.statusCode()).isEqualTo(410);
        assertThat(text(gone)).contains("more than 8388608 bytes are waiting for the other side to acknowledge them");
    }

    @Test
    void aSessionWithoutRequestsExpiresWith410AndTheReasonWhileAnActiveOneStays() throws Exception {
        start(LongPollLimits.defaults().withExpiry(Duration.ofSeconds(1)), Echo::new);
        Session idle = open(NODE);
        Session active = open(NODE);
        long deadline = System.nanoTime() + Duration.ofMillis(2500).toNanos();
        while (System.nanoTime() < deadline) {
            assertThat(down(active, 0).statusCode()).isEqualTo(200); // held 300 ms each
        }
        HttpResponse<byte[]> gone = down(idle, 0);
        assertThat(gone.statusCode()).isEqualTo(410);
        assertThat(text(gone)).contains("expired: no request for 1000 ms");
        assertThat(down(active, 0).statusCode()).isEqualTo(200);
        assertThat(sessions.openSessions()).isEqualTo(1);
    }

    @Test
    void withABatchTimespanOnlyRelayDataWaitsAndAnyOtherFrameTakesTheWaitingDataAlongAtOnce() throws Exception {
        start(
                LongPollLimits.defaults(),
                Echo::new); // what goes up comes down: the test writes the link's downstream frames
        HttpResponse<String> opened = http.send(
                HttpRequest.newBuilder(base.resolve("open?wait=20000&timespan=3000"))
                        .header(LongPollProtocol.NODE, NODE)
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(opened.headers().firstValue(LongPollProtocol.BATCH_TIMESPAN)).hasValue("3000");
        Session s = new Session(
                opened.headers().firstValue(LongPollProtocol.SESSION).orElseThrow(),
                opened.headers().firstValue(LongPollProtocol.SECRET).orElseThrow());
        byte[] preamble = new byte[io.traverse.wire.LinkPreamble.LENGTH];
        byte[] data = DownstreamFramesTest.relay(io.traverse.wire.RelayKind.DATA, "opener", "acceptor", 16);
        byte[] credit = DownstreamFramesTest.relay(io.traverse.wire.RelayKind.CREDIT, "opener", "acceptor", 0);
        byte[] ping = DownstreamFramesTest.other(6, 8);
        long sent = 0;

        // The preamble (a handshake's first answer) comes at once.
        assertThat(up(s, sent, preamble).statusCode()).isEqualTo(200);
        long t0 = System.nanoTime();
        HttpResponse<byte[]> first = downWaiting(s, sent);
        assertThat(first.body()).isEqualTo(preamble);
        assertThat(millisSince(t0))
                .as("the preamble is not held for the timespan")
                .isLessThan(1500);
        sent += preamble.length;

        // A DATA frame alone waits for the timespan.
        assertThat(up(s, sent, data).statusCode()).isEqualTo(200);
        t0 = System.nanoTime();
        HttpResponse<byte[]> held = downWaiting(s, sent);
        assertThat(held.body()).isEqualTo(data);
        assertThat(millisSince(t0)).as("DATA waits for the batch timespan").isGreaterThanOrEqualTo(2500);
        sent += data.length;

        // DATA then, while the poll is held, a CREDIT: both come at once.
        assertThat(up(s, sent, data).statusCode()).isEqualTo(200);
        t0 = System.nanoTime();
        long from = sent;
        CompletableFuture<HttpResponse<byte[]>> poll = CompletableFuture.supplyAsync(() -> {
            try {
                return downWaiting(s, from);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);
        assertThat(poll).isNotDone();
        assertThat(up(s, sent + data.length, credit).statusCode()).isEqualTo(200);
        byte[] both = poll.get(10, TimeUnit.SECONDS).body();
        assertThat(millisSince(t0))
                .as("a CREDIT is not held, and the DATA before it goes along")
                .isLessThan(2000);
        assertThat(both).hasSize(data.length + credit.length);
        sent += data.length + credit.length;

        // A keepalive PING after DATA: the same.
        assertThat(up(s, sent, data).statusCode()).isEqualTo(200);
        assertThat(up(s, sent + data.length, ping).statusCode()).isEqualTo(200);
        t0 = System.nanoTime();
        assertThat(downWaiting(s, sent).body()).hasSize(data.length + ping.length);
        assertThat(millisSince(t0)).as("a PING is not held").isLessThan(1500);
    }

    /** A poll that may be held up to 20 s; it must bring bytes. */
    private HttpResponse<byte[]> downWaiting(Session s, long ack) throws Exception {
        HttpResponse<byte[]> r = http.send(
                request(s, "down?ack=" + ack + "&wait=20000").GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue(LongPollProtocol.OFFSET)).hasValue(Long.toString(ack));
        return r;
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }
}
