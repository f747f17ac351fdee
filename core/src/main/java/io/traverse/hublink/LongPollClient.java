package io.traverse.hublink;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import io.traverse.config.HttpProxy;
import io.traverse.config.LongPollSettings;
import io.traverse.identity.NodeId;
import io.traverse.longpolling.LongPollProtocol;
import io.traverse.longpolling.SessionChannel;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's end of a long-poll session (issue 14): HTTP requests, through the proxy or straight
 * to the hub's link port, carry the bytes of a {@link SessionChannel} on which the hub link runs
 * as on a socket. One poll is outstanding at a time (the hub holds it until it has bytes or its
 * server timeout passes) and one upstream request at a time, each carrying up to the batch size
 * from the first unacknowledged offset; a request that fails (dropped connection, proxy restart,
 * client timeout) is repeated from the last acknowledged offsets, so nothing is lost or doubled.
 * An answer the hub means (403, 404, 409, 410) ends the session with its reason.
 *
 * <p>Requests go through the JDK's {@link HttpClient} (HTTP/1.1; through a proxy it sends
 * absolute-form requests, which proxies forward to any port, unlike CONNECT), with basic proxy
 * authentication sent preemptively when a user is set, as the CONNECT request does. Its answers
 * are handled on the session channel's event loop.
 */
final class LongPollClient implements SessionChannel.Pump {
    private static final Logger log = LoggerFactory.getLogger(LongPollClient.class);
    /** Downstream bytes the link has not read yet before the next poll waits (flow control). */
    private static final long INBOUND_LIMIT = 2L * 1024 * 1024;
    /** Upstream bytes held for the hub's acknowledgement before the rest waits in the channel (then it is not writable). */
    private static final long WINDOW = 4L * 1024 * 1024;
    private static final long MAX_UNACKNOWLEDGED = 64L * 1024 * 1024;
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);
    /** One HTTP client per proxy (and one without), shared by the nodes of the JVM: each owns a selector thread. */
    private static final Map<String, HttpClient> CLIENTS = new ConcurrentHashMap<>();

    private final HttpClient http;
    private final URI base;
    private final String nodeId;
    private final String secret;
    private final LongPollSettings settings;
    private final long waitMillis;
    private final int batchSize;
    private final String route;
    /** {@code Proxy-Authorization} sent with every request (basic, preemptive as for CONNECT), or null. */
    private final String proxyAuthorization;
    final SessionChannel channel;
    private EventLoop loop;
    private long received;
    private boolean polling;
    private boolean pollWaitsForRoom;
    private boolean posting;
    private int pollFailures;
    private int postFailures;
    private boolean ended;

    private LongPollClient(HttpClient http, URI base, String nodeId, String secret, LongPollSettings settings, long waitMillis,
            int batchSize, InetSocketAddress hub, String route, String proxyAuthorization) {
        this.http = http;
        this.proxyAuthorization = proxyAuthorization;
        this.base = base;
        this.nodeId = nodeId;
        this.secret = secret;
        this.settings = settings;
        this.waitMillis = waitMillis;
        this.batchSize = batchSize;
        this.route = route;
        this.channel = new SessionChannel(new InetSocketAddress(0), hub, WINDOW, MAX_UNACKNOWLEDGED, WATER_MARK);
        channel.pump(this);
    }

    /**
     * Opens a session at the hub (its link port), through {@code proxy} when not null. Completes
     * with the client whose {@link #channel} is ready for the link pipeline, or fails with a
     * {@link HubLinkException} saying why.
     */
    static CompletableFuture<LongPollClient> open(InetSocketAddress hub, ProxyRoute proxy, NodeId node, LongPollSettings settings,
            long timeoutMillis) {
        HttpClient http = client(proxy);
        URI base = URI.create("http://" + ProxyRoute.authority(hub) + LongPollProtocol.BASE + "/");
        String route = proxy == null ? "long-poll session with hub " + ProxyRoute.authority(hub)
                : "long-poll session through HTTP proxy " + proxy.proxy().authority() + " (" + proxy.proxy().origin() + ") with hub "
                        + ProxyRoute.authority(hub);
        String authorization = proxy == null ? null : proxy.proxy().basicAuthorization().orElse(null);
        HttpRequest.Builder open = HttpRequest.newBuilder(base.resolve("open?wait=" + settings.serverTimeout().toMillis() + "&batch="
                        + settings.batchSize() + "&timespan=" + settings.batchTimespan().toMillis()))
                .timeout(Duration.ofMillis(timeoutMillis))
                .header(LongPollProtocol.NODE, node.toString())
                .POST(HttpRequest.BodyPublishers.noBody());
        if (authorization != null) {
            open.header("Proxy-Authorization", authorization);
        }
        HttpRequest request = open.build();
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).handle((response, failure) -> {
            if (failure != null) {
                Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                throw new java.util.concurrent.CompletionException(new HubLinkException("cannot open a " + route + ": " + describe(cause), cause));
            }
            if (response.statusCode() != 201) {
                throw new java.util.concurrent.CompletionException(new HubLinkException("cannot open a " + route + ": it answered "
                        + response.statusCode() + (response.body().isBlank() ? "" : " (" + response.body().strip() + ")")
                        + (proxy != null && response.statusCode() == 407 ? " (the proxy wants a valid user and password)" : ""), false));
            }
            String id = response.headers().firstValue(LongPollProtocol.SESSION).orElse("");
            String secret = response.headers().firstValue(LongPollProtocol.SECRET).orElse("");
            long wait = response.headers().firstValueAsLong(LongPollProtocol.SERVER_TIMEOUT).orElse(settings.serverTimeout().toMillis());
            long batch = response.headers().firstValueAsLong(LongPollProtocol.BATCH_SIZE).orElse(settings.batchSize());
            if (!id.matches("[0-9a-f]{32}") || secret.isEmpty()) {
                throw new java.util.concurrent.CompletionException(new HubLinkException("cannot open a " + route
                        + ": the answer names no session (is this a Traverse hub?)", false));
            }
            return new LongPollClient(http, base.resolve(id + "/"), node.toString(), secret, settings,
                    Math.min(wait, settings.serverTimeout().toMillis()), (int) Math.max(1, Math.min(batch, settings.batchSize())), hub, route,
                    authorization);
        });
    }

    private static HttpClient client(ProxyRoute proxy) {
        String key = proxy == null ? "" : proxy.address().toString();
        return CLIENTS.computeIfAbsent(key, k -> HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .proxy(proxy == null ? HttpClient.Builder.NO_PROXY : ProxySelector.of(proxy.address()))
                .build());
    }

    /** What the hub link status and `traverse diagnose` say about this way to the hub. */
    String route() {
        return route;
    }

    /** Starts polling once the channel is registered on {@code eventLoop}. */
    void start(EventLoop eventLoop) {
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
            pollWaitsForRoom = true; // the link does not read: the hub keeps the bytes, and its end stops being writable
            return;
        }
        polling = true;
        long ack = received;
        HttpRequest request = request("down?ack=" + ack + "&wait=" + waitMillis).GET().build();
        http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).whenCompleteAsync((response, failure) -> {
            polling = false;
            if (ended) {
                return;
            }
            if (failure != null || response.statusCode() >= 500) {
                retry(() -> pollFailures++, this::poll, "poll", failure, response);
                return;
            }
            if (response.statusCode() != 200) {
                endByHub("poll", response);
                return;
            }
            pollFailures = 0;
            long offset = response.headers().firstValueAsLong(LongPollProtocol.OFFSET).orElse(-1);
            byte[] body = response.body();
            if (offset < 0 || offset > received) {
                channel.fail("the hub answered a poll with bytes from offset " + offset + " but this node has received " + received);
                return;
            }
            long skip = received - offset;
            if (skip < body.length) {
                channel.receive(Unpooled.wrappedBuffer(body, (int) skip, body.length - (int) skip));
                received += body.length - skip;
            }
            long regenerate = settings.regenerate().toMillis();
            if (regenerate == 0) {
                poll();
            } else {
                loop.schedule(this::poll, regenerate, TimeUnit.MILLISECONDS);
            }
        }, loop);
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
        ByteBuf bytes = channel.outgoing().read(seq, batchSize, PooledByteBufAllocator.DEFAULT);
        byte[] body;
        try {
            body = ByteBufUtil.getBytes(bytes);
        } finally {
            bytes.release();
        }
        HttpRequest request = request("up?seq=" + seq).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
        http.sendAsync(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8)).whenCompleteAsync((response, failure) -> {
            posting = false;
            if (ended) {
                return;
            }
            if (failure != null || response.statusCode() >= 500) {
                retry(() -> postFailures++, this::post, "upstream request", failure, response);
                return;
            }
            if (response.statusCode() != 200) {
                endByHub("upstream request", response);
                return;
            }
            postFailures = 0;
            long taken = response.headers().firstValueAsLong(LongPollProtocol.RECEIVED).orElse(-1);
            if (taken < seq || taken > seq + body.length) {
                channel.fail("the hub says it received " + taken + " upstream bytes after a request for " + seq + "-" + (seq + body.length));
                return;
            }
            channel.acknowledge(taken);
            post();
        }, loop);
    }

    // ---- both ----------------------------------------------------------------------------------

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path))
                .timeout(settings.clientTimeout())
                .header(LongPollProtocol.NODE, nodeId)
                .header(LongPollProtocol.SECRET, secret);
        if (proxyAuthorization != null) {
            b.header("Proxy-Authorization", proxyAuthorization);
        }
        return b;
    }

    /** A request that did not get through: repeated after a short pause, from the last acknowledged offset. */
    private void retry(Runnable count, Runnable again, String what, Throwable failure, HttpResponse<?> response) {
        count.run();
        int failures = Math.max(pollFailures, postFailures);
        String why = failure != null ? describe(failure.getCause() != null ? failure.getCause() : failure)
                : "it answered " + response.statusCode();
        log.debug("Long-poll {} failed ({}); repeating it ({} in a row)", what, why, failures);
        if (failures == 3) {
            log.info("Long-poll {} of the {} failed 3 times in a row: {}", what, route, why);
        }
        long delay = Math.min(1000, 20L << Math.min(6, failures - 1));
        loop.schedule(again, delay, TimeUnit.MILLISECONDS);
    }

    private void endByHub(String what, HttpResponse<?> response) {
        Object body = response.body();
        String text = body instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(body);
        channel.fail("the hub ended the long-poll session: its " + what + " was answered " + response.statusCode()
                + (text.isBlank() ? "" : " (" + text.strip() + ")"));
    }

    @Override
    public void closed() {
        if (ended) {
            return;
        }
        ended = true;
        if (channel.failure() == null) {
            // The node closed the link: tell the hub at once rather than leave it to expire (best effort).
            http.sendAsync(request("").timeout(Duration.ofSeconds(5)).DELETE().build(), HttpResponse.BodyHandlers.discarding());
        }
    }

    private static String describe(Throwable t) {
        if (t instanceof HttpTimeoutException) {
            return "no answer in time";
        }
        return t instanceof IOException && t.getMessage() != null ? t.getMessage() : t.toString();
    }
}
