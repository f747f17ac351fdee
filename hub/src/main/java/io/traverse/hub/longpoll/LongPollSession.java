package io.traverse.hub.longpoll;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.ScheduledFuture;
import io.traverse.identity.NodeId;
import io.traverse.longpolling.LongPollProtocol;
import io.traverse.longpolling.SessionChannel;
import io.traverse.longpolling.StreamBytes;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One long-poll session on the hub: the HTTP requests of one node feed a {@link SessionChannel}
 * that runs the ordinary link pipeline. Every method runs on the session channel's event loop;
 * the HTTP connections that carry its requests come and go (a dropped one costs nothing: the next
 * request repeats from the last acknowledged offset).
 *
 * <p>After the link closes the session drains: polls still get the bytes the link wrote last (a
 * REJECT, say), as a closed socket still delivers what was sent before its FIN; once those are
 * acknowledged, or the session expires, requests are answered 410 with the reason.
 */
final class LongPollSession implements SessionChannel.Pump {
    private static final Logger log = LoggerFactory.getLogger(LongPollSession.class);
    /** Upstream bytes waiting for the link to read them before an upstream request is answered (flow control). */
    static final long INBOUND_LIMIT = 2L * 1024 * 1024;

    final String id;
    final byte[] secret;
    final String declaredNode;
    final SessionChannel channel;
    /** The session channel's event loop, known before its registration completes: requests queue behind it. */
    final io.netty.channel.EventLoop loop;

    private final LongPollSessions sessions;
    private final long waitMillis;
    private final int batchSize;
    private final long timespanMillis;
    private volatile NodeId boundNode;
    private volatile long lastRequestNanos = System.nanoTime();
    private long received;
    private ChannelHandlerContext poll;
    private long pollAck;
    private ScheduledFuture<?> pollTimer;
    private ScheduledFuture<?> batchTimer;
    private ChannelHandlerContext heldUpstream;
    /** With a batch timespan: which downstream bytes may wait for it (RELAY DATA) and which go at once (null without). */
    private final DownstreamFrames frames;

    private boolean linkClosed;
    private String endReason;

    LongPollSession(
            LongPollSessions sessions,
            String id,
            byte[] secret,
            String declaredNode,
            SessionChannel channel,
            io.netty.channel.EventLoop loop,
            long waitMillis,
            int batchSize,
            long timespanMillis) {
        this.sessions = sessions;
        this.loop = loop;
        this.id = id;
        this.secret = secret;
        this.declaredNode = declaredNode;
        this.channel = channel;
        this.waitMillis = waitMillis;
        this.batchSize = batchSize;
        this.timespanMillis = timespanMillis;
        this.frames = timespanMillis > 0 ? new DownstreamFrames() : null;
    }

    long waitMillis() {
        return waitMillis;
    }

    int batchSize() {
        return batchSize;
    }

    long timespanMillis() {
        return timespanMillis;
    }

    NodeId boundNode() {
        return boundNode;
    }

    long idleNanos(long now) {
        return poll != null ? 0 : now - lastRequestNanos;
    }

    void touched() {
        lastRequestNanos = System.nanoTime();
    }

    /** On the state loop: the link inside admitted {@code node}. A session opened for another node cannot carry it. */
    void admitted(NodeId node) {
        if (!node.toString().equals(declaredNode)) {
            loop.execute(() -> fail(
                    "the link authenticated node " + node + " but the session was opened for node " + declaredNode));
            return;
        }
        boundNode = node;
    }

    // ---- requests ----------------------------------------------------------------------------

    /** GET .../down?ack=M: bytes from offset M, when there are some or the wait is over. */
    void poll(ChannelHandlerContext ctx, long ack, long askedWaitMillis) {
        if (endReason != null) {
            LongPollHttp.respond(ctx, HttpResponseStatus.GONE, endReason);
            return;
        }
        StreamBytes out = channel.outgoing();
        if (ack < out.start() || ack > out.end()) {
            LongPollHttp.respond(
                    ctx,
                    HttpResponseStatus.CONFLICT,
                    "the poll acknowledges offset " + ack + " but the session holds " + out.start() + "-" + out.end());
            return;
        }
        channel.acknowledge(ack);
        answerPoll(); // a newer poll replaces the held one (its connection may well be dead)
        if (linkClosed && out.size() == 0) {
            end(endReason != null ? endReason : "the hub closed the link");
            LongPollHttp.respond(ctx, HttpResponseStatus.GONE, endReason);
            return;
        }
        poll = ctx;
        pollAck = ack;
        if (out.end() > ack) {
            maybeAnswer();
        } else {
            long wait = Math.min(waitMillis, Math.max(0, askedWaitMillis));
            pollTimer = schedule(wait);
        }
    }

    private ScheduledFuture<?> schedule(long wait) {
        return loop.schedule(this::answerPoll, wait, TimeUnit.MILLISECONDS);
    }

    /** POST .../up?seq=N: upstream bytes from offset N (an overlap with what the hub has is skipped). */
    void upstream(ChannelHandlerContext ctx, long seq, ByteBuf body) {
        try {
            if (endReason != null || linkClosed) {
                LongPollHttp.respond(
                        ctx, HttpResponseStatus.GONE, endReason != null ? endReason : "the hub closed the link");
                return;
            }
            if (seq > received) {
                LongPollHttp.respond(
                        ctx,
                        HttpResponseStatus.CONFLICT,
                        "the request starts at upstream offset " + seq + " but the hub has received " + received
                                + " bytes");
                return;
            }
            long skip = received - seq;
            int n = body.readableBytes();
            if (skip < n) {
                channel.receive(body.retainedSlice(body.readerIndex() + (int) skip, n - (int) skip));
                received += n - skip;
            }
            if (heldUpstream != null) {
                answerUpstream(heldUpstream);
            }
            if (channel.inboundBytes() > INBOUND_LIMIT) {
                heldUpstream =
                        ctx; // answered once the link has read its way down: the node sends nothing more meanwhile
            } else {
                answerUpstream(ctx);
            }
        } finally {
            body.release();
        }
    }

    private void answerUpstream(ChannelHandlerContext ctx) {
        if (ctx == heldUpstream) {
            heldUpstream = null;
        }
        LongPollHttp.respond(
                ctx,
                HttpResponseStatus.OK,
                Unpooled.EMPTY_BUFFER,
                Map.of(LongPollProtocol.RECEIVED, Long.toString(received)));
    }

    /** DELETE: the node ends the session. */
    void delete(ChannelHandlerContext ctx) {
        end("the node ended the session");
        LongPollHttp.respond(ctx, HttpResponseStatus.NO_CONTENT, "");
    }

    // ---- the channel's side -----------------------------------------------------------------

    @Override
    public void outputAvailable() {
        if (frames != null) {
            // Read every byte as it is written: until a poll acknowledges them they are still in the channel's buffer.
            StreamBytes out = channel.outgoing();
            long from = frames.scanned();
            if (from < out.start()) {
                frames.giveUp(); // cannot happen (bytes are read as they are written), but never guess at framing
            } else if (out.end() > from) {
                ByteBuf fresh = out.read(from, (int) Math.min(Integer.MAX_VALUE, out.end() - from), channel.alloc());
                try {
                    frames.scan(fresh);
                } finally {
                    fresh.release();
                }
            }
        }
        if (poll != null) {
            maybeAnswer();
        }
    }

    @Override
    public void inputConsumed() {
        if (heldUpstream != null && channel.inboundBytes() <= INBOUND_LIMIT / 2) {
            answerUpstream(heldUpstream);
        }
    }

    @Override
    public void closed() {
        linkClosed = true;
        if (channel.failure() != null) {
            fail(channel.failure());
            return;
        }
        if (heldUpstream != null) {
            LongPollHttp.respond(heldUpstream, HttpResponseStatus.GONE, "the hub closed the link");
            heldUpstream = null;
        }
        if (channel.outgoing().size() == 0) {
            answerPoll();
            end("the hub closed the link");
        } else if (poll != null) {
            maybeAnswer();
        }
    }

    private void maybeAnswer() {
        long available = channel.outgoing().end() - pollAck;
        if (available <= 0) {
            return;
        }
        if (timespanMillis == 0 || available >= batchSize || linkClosed || frames.urgentFrom(pollAck)) {
            answerPoll();
        } else if (batchTimer == null) {
            batchTimer = loop.schedule(this::answerPoll, timespanMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** Answers the held poll with what there is from its offset (perhaps nothing). */
    private void answerPoll() {
        if (pollTimer != null) {
            pollTimer.cancel(false);
            pollTimer = null;
        }
        if (batchTimer != null) {
            batchTimer.cancel(false);
            batchTimer = null;
        }
        ChannelHandlerContext ctx = poll;
        if (ctx == null) {
            return;
        }
        poll = null;
        touched();
        StreamBytes out = channel.outgoing();
        // A poll replaced by a newer one may ask for bytes that poll has acknowledged since: it gets none.
        ByteBuf body = pollAck >= out.start() && out.end() > pollAck
                ? out.read(pollAck, batchSize, ctx.alloc())
                : Unpooled.EMPTY_BUFFER;
        LongPollHttp.respond(ctx, HttpResponseStatus.OK, body, Map.of(LongPollProtocol.OFFSET, Long.toString(pollAck)));
    }

    /** Fails the session: the link closes like a dropped TCP link, and every later request is answered 410 with the reason. */
    void fail(String reason) {
        if (endReason != null) {
            return;
        }
        log.warn(
                "Long-poll session {} of node {} failed: {}", id, boundNode != null ? boundNode : declaredNode, reason);
        end(reason);
    }

    private void end(String reason) {
        if (endReason != null) {
            return;
        }
        endReason = reason;
        if (poll != null) {
            ChannelHandlerContext ctx = poll;
            poll = null;
            LongPollHttp.respond(ctx, HttpResponseStatus.GONE, reason);
        }
        if (heldUpstream != null) {
            LongPollHttp.respond(heldUpstream, HttpResponseStatus.GONE, reason);
            heldUpstream = null;
        }
        if (pollTimer != null) {
            pollTimer.cancel(false);
        }
        if (batchTimer != null) {
            batchTimer.cancel(false);
        }
        if (channel.isRegistered()) {
            channel.fail(reason);
        }
        channel.outgoing().clear();
        sessions.ended(this, reason);
    }
}
