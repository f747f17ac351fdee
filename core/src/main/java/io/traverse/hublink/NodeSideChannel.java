package io.traverse.hublink;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.traverse.SideChannel;
import io.traverse.SideChannelException;
import io.traverse.SideChannelException.Failure;
import io.traverse.SideChannelHandler;
import io.traverse.hublink.transport.HubLinkException;
import io.traverse.hublink.transport.LinkEventLoops;
import io.traverse.identity.NodeId;
import io.traverse.wire.SideMessage;
import io.traverse.wire.SideMessageError;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's end of the side channel: sends requests through its hub and matches their answers
 * (bounded table, deadlines), and serves requests for registered services on a small bounded
 * pool of handler threads; only a handler that {@linkplain SideChannelHandler#answersAtOnce
 * answers at once} runs on the link's event loop.
 */
public final class NodeSideChannel implements SideChannel {
    /** Requests of this node waiting for an answer, at most (the hub's per-node limit is 256 as well). */
    static final int MAX_PENDING = 256;

    static final int HANDLER_THREADS = 4;
    static final int HANDLER_QUEUE = 256;
    private static final Pattern SERVICE = Pattern.compile("[A-Za-z0-9._/-]{1," + MAX_SERVICE + "}");
    private static final Logger log = LoggerFactory.getLogger(NodeSideChannel.class);

    private final HubLink link;
    private final NodeId self;
    private final Duration defaultTimeout;
    private final ScheduledExecutorService timer;
    private final PendingRequests<byte[]> pending = new PendingRequests<>(MAX_PENDING, -1L);
    private final Map<String, SideChannelHandler> handlers = new ConcurrentHashMap<>();
    private final ThreadPoolExecutor handlerPool;

    NodeSideChannel(HubLink link, NodeId self, Duration defaultTimeout, ScheduledExecutorService timer) {
        this.link = link;
        this.self = self;
        this.defaultTimeout = defaultTimeout;
        this.timer = timer;
        this.handlerPool = new ThreadPoolExecutor(
                HANDLER_THREADS,
                HANDLER_THREADS,
                30,
                TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(HANDLER_QUEUE),
                new DefaultThreadFactory("traverse-side-" + self.shortForm(), true),
                new ThreadPoolExecutor.AbortPolicy());
        handlerPool.allowCoreThreadTimeOut(true);
    }

    @Override
    public CompletableFuture<byte[]> request(NodeId target, String service, byte[] payload) {
        return request(target, service, payload, defaultTimeout);
    }

    @Override
    public CompletableFuture<byte[]> request(NodeId target, String service, byte[] payload, Duration timeout) {
        Objects.requireNonNull(target, "target");
        checkService(service);
        checkPayload(payload, "request");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, not " + timeout);
        }
        String what = "side-channel request '" + service + "' to node " + target;
        CompletableFuture<LinkSession> linked = link.session();
        if (linked.isCompletedExceptionally()) {
            return linked.handle((s, e) -> {
                throw new java.util.concurrent.CompletionException(HubLinkException.unwrap(e));
            });
        }
        PendingRequests.Pending<byte[]> p = pending.register(
                timeout.toNanos(),
                timer,
                () -> new SideChannelException(
                        linked.isDone() ? Failure.TIMEOUT : Failure.NO_HUB,
                        what + (linked.isDone() ? " got no answer within " : " found no hub link within ")
                                + timeout.toMillis() + " ms"));
        if (p == null) {
            return CompletableFuture.failedFuture(new SideChannelException(
                    Failure.OVERLOAD,
                    what + ": " + MAX_PENDING + " side-channel requests of this node are pending already"));
        }
        byte[] copy = payload.clone();
        linked.whenComplete((s, failure) -> {
            if (failure != null) {
                pending.fail(p.id(), HubLinkException.unwrap(failure));
                return;
            }
            s.send(SideMessage.request(p.id(), self, target, service, copy)).addListener(f -> {
                if (!f.isSuccess()) {
                    pending.fail(
                            p.id(),
                            new SideChannelException(
                                    Failure.LINK_LOST,
                                    what + ": sending failed: " + f.cause().getMessage()));
                }
            });
        });
        // Hand the outcome over off the event loop: callers may block in dependent stages.
        CompletableFuture<byte[]> result = p.answer().whenCompleteAsync((v, e) -> {}, LinkEventLoops.completions());
        result.whenComplete((v, e) -> {
            if (result.isCancelled()) {
                p.answer().cancel(false);
            }
        });
        return result;
    }

    @Override
    public Registration register(String service, SideChannelHandler handler) {
        checkService(service);
        Objects.requireNonNull(handler, "handler");
        if (handlers.putIfAbsent(service, handler) != null) {
            throw new IllegalStateException("service '" + service + "' has a handler on this node already");
        }
        return new Registration() {
            @Override
            public String service() {
                return service;
            }

            @Override
            public void close() {
                handlers.remove(service, handler);
            }
        };
    }

    /** A side message for this node, on the link's event loop. */
    void inbound(SideMessage m) {
        if (!m.to().equals(self)) {
            log.debug("Dropping a side message for node {} (this is {})", m.to(), self);
            return;
        }
        switch (m.kind()) {
            case REQUEST -> serve(m);
            case REPLY -> pending.complete(m.messageId(), m.payload());
            case ERROR ->
                pending.fail(
                        m.messageId(),
                        new SideChannelException(
                                failureOf(m.errorCode()),
                                "side-channel request '" + m.service() + "' to node " + m.from() + " failed: "
                                        + m.errorCode() + ": " + m.errorReason()));
            default -> log.debug("Ignoring side message of kind {}", m.kind());
        }
    }

    private void serve(SideMessage request) {
        SideChannelHandler handler = handlers.get(request.service());
        if (handler == null) {
            answer(request.error(
                    SideMessageError.NO_SERVICE, "node " + self + " has no service '" + request.service() + "'"));
            return;
        }
        Runnable serving = () -> {
            CompletableFuture<byte[]> reply;
            try {
                reply = handler.answerLater(request.from(), request.payload());
            } catch (Exception | LinkageError e) {
                reply = CompletableFuture.failedFuture(e);
            }
            if (reply == null) {
                reply = CompletableFuture.failedFuture(new NullPointerException("the handler returned no future"));
            }
            reply.whenComplete((bytes, failure) -> answer(answerFor(request, bytes, failure)));
        };
        if (handler.answersAtOnce()) {
            serving.run(); // it only hands the work on: a hand-off to a handler thread would cost more than it does
            return;
        }
        try {
            handlerPool.execute(serving);
        } catch (RejectedExecutionException e) {
            answer(request.error(
                    SideMessageError.OVERLOAD,
                    "node " + self + " has " + HANDLER_QUEUE + " side-channel requests queued"));
        }
    }

    private SideMessage answerFor(SideMessage request, byte[] reply, Throwable failure) {
        if (failure != null) {
            Throwable e = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                    ? failure.getCause()
                    : failure;
            log.debug("Side-channel handler for '{}' failed", request.service(), e);
            return request.error(
                    SideMessageError.HANDLER_FAILED,
                    e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()));
        }
        byte[] bytes = reply == null ? new byte[0] : reply;
        return bytes.length > MAX_PAYLOAD
                ? request.error(
                        SideMessageError.HANDLER_FAILED, "answer of " + bytes.length + " bytes exceeds " + MAX_PAYLOAD)
                : request.reply(bytes);
    }

    /** Sends an answer on whatever link is up now; if none is, the sender's deadline ends the request. */
    private void answer(SideMessage answer) {
        CompletableFuture<LinkSession> linked = link.session();
        if (linked.isDone() && !linked.isCompletedExceptionally()) {
            linked.join().send(answer);
        } else {
            log.debug("No hub link to send the answer to {} on", answer.to());
        }
    }

    void linkLost(String why) {
        pending.failAll(() -> new SideChannelException(Failure.LINK_LOST, "the link to the hub broke: " + why));
    }

    void close() {
        pending.failAll(() -> new SideChannelException(Failure.CLOSED, "the node is closed"));
        handlerPool.shutdownNow();
    }

    private static Failure failureOf(SideMessageError error) {
        return switch (error) {
            case NO_ROUTE -> Failure.NO_ROUTE;
            case UNKNOWN_NODE -> Failure.UNKNOWN_NODE;
            case HOP_LIMIT -> Failure.HOP_LIMIT;
            case NO_SERVICE -> Failure.NO_SERVICE;
            case OVERLOAD -> Failure.OVERLOAD;
            case HANDLER_FAILED -> Failure.HANDLER_FAILED;
        };
    }

    private static void checkService(String service) {
        if (service == null || !SERVICE.matcher(service).matches()) {
            throw new IllegalArgumentException("service name '" + service + "' must be 1-" + MAX_SERVICE
                    + " letters, digits, '.', '_', '/' or '-'");
        }
    }

    private static void checkPayload(byte[] payload, String what) {
        Objects.requireNonNull(payload, what);
        if (payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException(what + " of " + payload.length + " bytes exceeds " + MAX_PAYLOAD);
        }
    }

    @Override
    public String toString() {
        return "SideChannel[" + self + ", services " + handlers.keySet() + "]";
    }
}
