package io.traverse.longpoll;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.traverse.config.HttpProxy;
import io.traverse.identity.NodeId;
import io.traverse.longpolling.LongPollProtocol;
import io.traverse.longpolling.SessionChannel;
import io.traverse.settings.LongPollSettings;
import io.traverse.spi.HttpTransport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's end of a long-poll session: HTTP requests, through the proxy or straight
 * to the hub's link port, carry the bytes of a {@link SessionChannel} on which the hub link runs
 * as on a socket. One poll is outstanding at a time (the hub holds it until it has bytes or its
 * server timeout passes) and one upstream request at a time, each carrying up to the batch size
 * from the first unacknowledged offset; a request that fails (dropped connection, proxy restart,
 * client timeout) is repeated from the last acknowledged offsets, so nothing is lost or doubled.
 * An answer the hub means (403, 404, 409, 410) ends the session with its reason.
 *
 * <p>Polls and upstream requests each have their own persistent HTTP connection
 * ({@link SessionHttpConnection}) on the link's event loop, the loop the session channel runs on:
 * an answer's bytes reach the link pipeline on the thread that read them, and the next poll leaves
 * from it at once. Basic proxy authentication is sent preemptively when a user is set, as the
 * CONNECT request does.
 */
final class LongPollClient implements SessionChannel.Pump, HttpTransport.Session {
    private static final Logger log = LoggerFactory.getLogger(LongPollClient.class);
    /** Downstream bytes the link has not read yet before the next poll waits (flow control). */
    private static final long INBOUND_LIMIT = 2L * 1024 * 1024;
    /** Upstream bytes held for the hub's acknowledgement before the rest waits in the channel (then it is not writable). */
    private static final long WINDOW = 4L * 1024 * 1024;

    private static final long MAX_UNACKNOWLEDGED = 64L * 1024 * 1024;
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);
    private static final int CONNECT_TIMEOUT_MILLIS = 10_000;

    private final SessionHttpConnection polls;
    private final SessionHttpConnection uploads;
    private final String sessionPath;
    private final Map<String, String> headers;
    private final LongPollSettings settings;
    private final long waitMillis;
    private final int batchSize;
    private final String route;
    private final SessionChannel channel;
    private EventLoop loop;
    private long received;
    private boolean polling;
    private boolean pollWaitsForRoom;
    private boolean posting;
    private int pollFailures;
    private int postFailures;
    private boolean ended;

    private LongPollClient(
            SessionHttpConnection polls,
            String sessionPath,
            String nodeId,
            String secret,
            LongPollSettings settings,
            long waitMillis,
            int batchSize,
            InetSocketAddress hub,
            String route) {
        this.polls = polls;
        this.uploads = polls.sibling();
        this.sessionPath = sessionPath;
        this.headers = Map.of(LongPollProtocol.NODE, nodeId, LongPollProtocol.SECRET, secret);
        this.settings = settings;
        this.waitMillis = waitMillis;
        this.batchSize = batchSize;
        this.route = route;
        this.channel = new SessionChannel(new InetSocketAddress(0), hub, WINDOW, MAX_UNACKNOWLEDGED, WATER_MARK);
        channel.pump(this);
    }

    /**
     * Opens a session at the hub (its link port), through {@code proxy} when not null, on
     * {@code loop} (the link's). Completes with the client whose {@link #channel} is ready for the
     * link pipeline, or fails with an {@link IOException} saying why.
     */
    static CompletableFuture<HttpTransport.Session> open(
            EventLoop loop,
            Class<? extends Channel> channelClass,
            HttpTransport.Way way,
            NodeId node,
            LongPollSettings settings,
            long timeoutMillis) {
        InetSocketAddress hub = way.hub();
        HttpProxy proxy = way.proxy();
        String authority = HttpProxy.authorityOf(hub);
        String route = proxy == null
                ? "long-poll session with hub " + authority
                : "long-poll session through HTTP proxy " + proxy.authority() + " (" + proxy.origin() + ") with hub "
                        + authority;
        String authorization = proxy == null ? null : proxy.basicAuthorization().orElse(null);
        CompletableFuture<HttpTransport.Session> opened = new CompletableFuture<>();
        loop.execute(() -> {
            SessionHttpConnection http = new SessionHttpConnection(
                    loop,
                    channelClass,
                    proxy == null ? hub : way.proxyAddress(),
                    authority,
                    proxy != null,
                    authorization,
                    (int) Math.min(CONNECT_TIMEOUT_MILLIS, timeoutMillis));
            String path = LongPollProtocol.OPEN + "?wait="
                    + settings.serverTimeout().toMillis() + "&batch=" + settings.batchSize() + "&timespan="
                    + settings.batchTimespan().toMillis();
            http.send(
                            HttpMethod.POST,
                            path,
                            Map.of(LongPollProtocol.NODE, node.toString()),
                            SessionHttpConnection.noBody(),
                            timeoutMillis)
                    .whenComplete((response, failure) -> {
                        try {
                            opened.complete(opened(http, response, failure, hub, proxy, node, settings, route));
                        } catch (IOException e) {
                            http.close();
                            opened.completeExceptionally(new CompletionException(e));
                        } finally {
                            if (response != null) {
                                response.release();
                            }
                        }
                    });
        });
        return opened;
    }

    private static LongPollClient opened(
            SessionHttpConnection http,
            FullHttpResponse response,
            Throwable failure,
            InetSocketAddress hub,
            HttpProxy proxy,
            NodeId node,
            LongPollSettings settings,
            String route)
            throws IOException {
        if (failure != null) {
            throw new IOException("cannot open a " + route + ": " + describe(failure), failure);
        }
        int status = response.status().code();
        if (status != 201) {
            String body = response.content().toString(StandardCharsets.UTF_8);
            throw new IOException("cannot open a " + route + ": it answered " + status
                    + (body.isBlank() ? "" : " (" + body.strip() + ")")
                    + (proxy != null && status == 407 ? " (the proxy wants a valid user and password)" : ""));
        }
        String id = header(response, LongPollProtocol.SESSION, "");
        String secret = header(response, LongPollProtocol.SECRET, "");
        long wait = number(
                response,
                LongPollProtocol.SERVER_TIMEOUT,
                settings.serverTimeout().toMillis());
        long batch = number(response, LongPollProtocol.BATCH_SIZE, settings.batchSize());
        if (!id.matches("[0-9a-f]{32}") || secret.isEmpty()) {
            throw new IOException("cannot open a " + route + ": the answer names no session (is this a Traverse hub?)");
        }
        return new LongPollClient(
                http,
                LongPollProtocol.BASE + "/" + id + "/",
                node.toString(),
                secret,
                settings,
                Math.min(wait, settings.serverTimeout().toMillis()),
                (int) Math.max(1, Math.min(batch, settings.batchSize())),
                hub,
                route);
    }

    private static String header(FullHttpResponse response, String name, String absent) {
        String v = response.headers().get(name);
        return v == null ? absent : v;
    }

    private static long number(FullHttpResponse response, String name, long absent) {
        String v = response.headers().get(name);
        if (v == null) {
            return absent;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public SessionChannel channel() {
        return channel;
    }

    /** What the hub link status and `traverse diagnose` say about this way to the hub. */
    @Override
    public String route() {
        return route;
    }

    /** Starts polling once the channel is registered on {@code eventLoop} (the loop the session was opened on). */
    @Override
    public void start(EventLoop eventLoop) {
        this.loop = eventLoop;
        loop.execute(() -> {
            poll();
            post(); // the handshake's first bytes were written when the channel became active
        });
    }

    // ---- downstream ----------------------------------------------------------------------------

    private void poll() {
        if (polling || ended) {
            return;
        }
        if (channel.inboundBytes() > INBOUND_LIMIT) {
            pollWaitsForRoom =
                    true; // the link does not read: the hub keeps the bytes, and its end stops being writable
            return;
        }
        polling = true;
        polls.send(
                        HttpMethod.GET,
                        sessionPath + "down?ack=" + received + "&wait=" + waitMillis,
                        headers,
                        SessionHttpConnection.noBody(),
                        settings.clientTimeout().toMillis())
                .whenComplete((response, failure) -> {
                    try {
                        polled(response, failure);
                    } finally {
                        if (response != null) {
                            response.release();
                        }
                    }
                });
    }

    /** On the loop, with the poll's answer: its bytes go to the link at once, and the next poll leaves. */
    private void polled(FullHttpResponse response, Throwable failure) {
        polling = false;
        if (ended) {
            return;
        }
        if (failure != null || response.status().code() >= 500) {
            retry(() -> pollFailures++, this::poll, "poll", failure, response);
            return;
        }
        if (response.status().code() != 200) {
            endByHub("poll", response);
            return;
        }
        pollFailures = 0;
        long offset = number(response, LongPollProtocol.OFFSET, -1);
        ByteBuf body = response.content();
        if (offset < 0 || offset > received) {
            channel.fail("the hub answered a poll with bytes from offset " + offset + " but this node has received "
                    + received);
            return;
        }
        long skip = received - offset;
        int length = body.readableBytes();
        ByteBuf fresh = skip < length ? body.retainedSlice(body.readerIndex() + (int) skip, length - (int) skip) : null;
        if (fresh != null) {
            received += fresh.readableBytes();
        }
        long regenerate = settings.regenerate().toMillis();
        // The next poll leaves before the link digests these bytes: the hub can answer it while they are read.
        if (regenerate == 0) {
            poll();
        }
        if (fresh != null) {
            channel.receive(fresh);
        }
        if (regenerate != 0) {
            loop.schedule(this::poll, regenerate, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void inputConsumed() {
        if (pollWaitsForRoom && channel.inboundBytes() <= INBOUND_LIMIT / 2) {
            pollWaitsForRoom = false;
            poll();
        }
    }

    // ---- upstream ------------------------------------------------------------------------------

    @Override
    public void outputAvailable() {
        post();
    }

    private void post() {
        if (posting || ended || channel.outgoing().size() == 0 || loop == null) {
            return;
        }
        posting = true;
        long seq = channel.outgoing().start();
        ByteBuf body = channel.outgoing().read(seq, batchSize, PooledByteBufAllocator.DEFAULT);
        int length = body.readableBytes();
        uploads.send(
                        HttpMethod.POST,
                        sessionPath + "up?seq=" + seq,
                        headers,
                        body,
                        settings.clientTimeout().toMillis())
                .whenComplete((response, failure) -> {
                    try {
                        posted(seq, length, response, failure);
                    } finally {
                        if (response != null) {
                            response.release();
                        }
                    }
                });
    }

    private void posted(long seq, int length, FullHttpResponse response, Throwable failure) {
        posting = false;
        if (ended) {
            return;
        }
        if (failure != null || response.status().code() >= 500) {
            retry(() -> postFailures++, this::post, "upstream request", failure, response);
            return;
        }
        if (response.status().code() != 200) {
            endByHub("upstream request", response);
            return;
        }
        postFailures = 0;
        long taken = number(response, LongPollProtocol.RECEIVED, -1);
        if (taken < seq || taken > seq + length) {
            channel.fail("the hub says it received " + taken + " upstream bytes after a request for " + seq + "-"
                    + (seq + length));
            return;
        }
        channel.acknowledge(taken);
        post();
    }

    // ---- both ----------------------------------------------------------------------------------

    /** A request that did not get through: repeated after a short pause, from the last acknowledged offset. */
    private void retry(Runnable count, Runnable again, String what, Throwable failure, FullHttpResponse response) {
        count.run();
        int failures = Math.max(pollFailures, postFailures);
        String why = failure != null
                ? describe(failure)
                : "it answered " + response.status().code();
        log.debug("Long-poll {} failed ({}); repeating it ({} in a row)", what, why, failures);
        if (failures == 3) {
            log.info("Long-poll {} of the {} failed 3 times in a row: {}", what, route, why);
        }
        long delay = Math.min(1000, 20L << Math.min(6, failures - 1));
        loop.schedule(again, delay, TimeUnit.MILLISECONDS);
    }

    private void endByHub(String what, FullHttpResponse response) {
        String text = response.content().toString(StandardCharsets.UTF_8);
        channel.fail("the hub ended the long-poll session: its " + what + " was answered "
                + response.status().code() + (text.isBlank() ? "" : " (" + text.strip() + ")"));
    }

    @Override
    public void closed() {
        if (ended) {
            return;
        }
        ended = true;
        polls.close(); // a held poll would otherwise wait out the server timeout
        if (channel.failure() == null) {
            // The node closed the link: tell the hub at once rather than leave it to expire (best effort).
            uploads.close();
            SessionHttpConnection farewell = polls.sibling();
            farewell.send(HttpMethod.DELETE, sessionPath, headers, SessionHttpConnection.noBody(), 5_000)
                    .whenComplete((response, failure) -> {
                        if (response != null) {
                            response.release();
                        }
                        farewell.close();
                    });
        } else {
            uploads.close();
        }
    }

    private static String describe(Throwable t) {
        Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
        if (cause instanceof SessionHttpConnection.AnswerTimeoutException) {
            return "no answer in time";
        }
        return cause instanceof IOException && cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }
}
