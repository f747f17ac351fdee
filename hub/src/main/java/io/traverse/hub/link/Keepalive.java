package io.traverse.hub.link;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.traverse.wire.Ping;
import io.traverse.wire.Pong;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a PING every interval, answers PINGs, measures the RTT from PONGs, and closes a link
 * that has been silent (no frame at all) for {@link #SILENT_INTERVALS} intervals: that is how a
 * hub notices a peer that vanished without a FIN, and withdraws its routes.
 *
 * <p>A live peer sends at least one frame per interval, so 2.5 silent intervals are a safe verdict;
 * the silence is checked every quarter interval, so a hung peer's routes are gone within
 * 2.75 intervals plus the gossip's way through the network, inside the promised 3. Time this
 * hub's own loop spent unable to run the check (a tick that comes late) is not counted as the
 * peer's silence: an overloaded hub must not drop its links for its own slowness. Nor is time the
 * hub held the link's reading (relay backpressure). The other way round, a link that stays
 * unwritable and whose peer takes nothing at all for {@link #TAKES_NOTHING_INTERVALS} intervals is
 * closed with REJECT LIMIT; a peer that takes something — a busy node reading slowly — is slow,
 * not dead, and keeps its link.
 */
final class Keepalive extends ChannelInboundHandlerAdapter {
    static final double SILENT_INTERVALS = 2.5;
    /**
     * How long a link may take nothing at all of what it is sent before it is closed. Longer than
     * silence: a peer that reads slowly behind full kernel buffers shows its progress only in
     * steps (the kernel reports room once a third of the send buffer is free: seconds apart at a
     * few hundred KB/s), and it is slow, not dead.
     */
    static final int TAKES_NOTHING_INTERVALS = 10;

    private static final int CHECKS_PER_INTERVAL = 4;
    private static final Logger log = LoggerFactory.getLogger(Keepalive.class);

    private final long intervalNanos;
    private volatile long rttMicros = -1;
    /** Set while the hub itself holds this link's reading (relay backpressure): that silence is ours, not the peer's. */
    private volatile boolean readingHeld;

    private long lastReadNanos = System.nanoTime();
    private long lastPingNanos;
    private long lastTickNanos;
    /**
     * While the link is not writable: when it last took something (its backlog shrank from one
     * check to the next), or 0 while it is writable.
     */
    private long unwritableSinceNanos;
    /** The backlog (bytes before writable) at the last check. */
    private long lastBacklog = Long.MAX_VALUE;

    private long checkNanos;
    private ScheduledFuture<?> ticker;
    /** Set once the handler is in the pipeline (for {@link #pingAtOnce}). */
    private volatile ChannelHandlerContext context;

    Keepalive(long intervalMillis) {
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
    }

    long rttMicros() {
        return rttMicros;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
        lastReadNanos = System.nanoTime();
        lastPingNanos = lastReadNanos;
        checkNanos = Math.max(1, intervalNanos / CHECKS_PER_INTERVAL);
        ticker = ctx.executor().scheduleAtFixedRate(() -> tick(ctx), checkNanos, checkNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    private void stop() {
        if (ticker != null) {
            ticker.cancel(false);
        }
    }

    private void tick(ChannelHandlerContext ctx) {
        long now = System.nanoTime();
        // A tick that comes late means this hub's own loop was busy (or the machine was): frames may
        // be waiting unread in the socket. That time is not the peer's silence.
        long late = lastTickNanos == 0 ? 0 : now - lastTickNanos - checkNanos;
        lastTickNanos = now;
        if (late > checkNanos || readingHeld) {
            lastReadNanos = readingHeld ? now : lastReadNanos + late;
        }
        if (!ctx.channel().isWritable()) {
            // A peer that reads slowly (a busy node) still takes something every tick: only one that
            // takes nothing at all for as long as a silent one would be given is cut off.
            long backlog = ctx.channel().bytesBeforeWritable();
            if (unwritableSinceNanos == 0 || backlog < lastBacklog) {
                unwritableSinceNanos = now;
            }
            lastBacklog = backlog;
            if (now - unwritableSinceNanos > TAKES_NOTHING_INTERVALS * intervalNanos) {
                // The peer does not read what it is sent; links held back for it (relay backpressure)
                // wait on this one, so it goes, not them.
                log.info(
                        "Closing link to {}: it took nothing for {} ms (keepalive every {} ms)",
                        ctx.channel().remoteAddress(),
                        TimeUnit.NANOSECONDS.toMillis(now - unwritableSinceNanos),
                        TimeUnit.NANOSECONDS.toMillis(intervalNanos));
                stop();
                LinkClosing.rejectAndClose(
                        ctx.channel(), Reject.of(RejectCode.LIMIT, "the link does not read what it is sent"));
                return;
            }
        } else {
            unwritableSinceNanos = 0;
            lastBacklog = Long.MAX_VALUE;
        }
        long silent = now - lastReadNanos;
        if (silent > SILENT_INTERVALS * intervalNanos) {
            log.info(
                    "Closing link to {}: silent for {} ms (keepalive every {} ms)",
                    ctx.channel().remoteAddress(),
                    TimeUnit.NANOSECONDS.toMillis(silent),
                    TimeUnit.NANOSECONDS.toMillis(intervalNanos));
            stop();
            ctx.close();
            return;
        }
        if (now - lastPingNanos >= intervalNanos - intervalNanos / (2 * CHECKS_PER_INTERVAL)) {
            lastPingNanos = now;
            ctx.writeAndFlush(new Ping(now), ctx.voidPromise());
        }
    }

    /**
     * A first PING right after the handshake, not an interval later: a hub's description carries
     * its links' round-trip times, and a hub that waits briefly for them publishes a new link once
     * instead of twice. Any thread; the caller makes sure the handshake's last frame (the
     * acceptor's WELCOME) is written first, as the dialler reads nothing else before it.
     */
    void pingAtOnce() {
        ChannelHandlerContext ctx = context;
        if (ctx == null) {
            return;
        }
        ctx.executor().execute(() -> {
            if (ctx.channel().isActive() && !ctx.isRemoved()) {
                lastPingNanos = System.nanoTime();
                ctx.writeAndFlush(new Ping(lastPingNanos), ctx.voidPromise());
            }
        });
    }

    /** The hub holds (true) or lets go of (false) this link's reading. Any thread. */
    void readingHeld(boolean held) {
        readingHeld = held;
    }

    /** A frame arrived that a handler before this one consumed. On the channel's loop. */
    void frameArrived() {
        lastReadNanos = System.nanoTime();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        long now = System.nanoTime();
        lastReadNanos = now;
        if (msg instanceof Ping ping) {
            ctx.writeAndFlush(new Pong(ping.token()), ctx.voidPromise());
        } else if (msg instanceof Pong pong) {
            long rtt = now - pong.token();
            if (rtt >= 0 && rtt < TimeUnit.MINUTES.toNanos(10)) {
                rttMicros = TimeUnit.NANOSECONDS.toMicros(rtt);
            }
        } else {
            ctx.fireChannelRead(msg);
        }
    }
}
