package io.traverse.hublink;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.util.concurrent.ScheduledFuture;
import io.traverse.identity.NodeId;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Ping;
import io.traverse.wire.Pong;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One authenticated link to a hub: sends messages, keeps the link alive (PING every interval,
 * dead after {@link #DEAD_AFTER_INTERVALS} intervals without any frame from the hub), measures
 * its round-trip time from PONGs, and hands every other inbound message to the link manager.
 */
final class LinkSession extends ChannelInboundHandlerAdapter {
    static final int DEAD_AFTER_INTERVALS = 3;
    private static final Logger log = LoggerFactory.getLogger(LinkSession.class);

    private final Channel channel;
    private final InetSocketAddress hubAddress;
    private final NodeId hubId;
    private final InetSocketAddress observedAddress;
    private final long keepaliveNanos;
    private final BiConsumer<LinkSession, LinkMessage> inbound;
    private volatile long lastReadNanos = System.nanoTime();
    /** When the hub was last heard on this link's data link: frames there prove the hub alive just as well. */
    private volatile long dataLinkHeardNanos = lastReadNanos;
    /** When the keepalive last ran (on the loop); 0 before its first run. */
    private long lastTickNanos;

    private volatile long rttNanos = -1;
    private volatile String closeReason;
    private ScheduledFuture<?> keepalive;
    private volatile byte[] clientNonce;
    private volatile byte[] serverNonce;

    LinkSession(
            Channel channel,
            InetSocketAddress hubAddress,
            NodeId hubId,
            InetSocketAddress observedAddress,
            long keepaliveMillis,
            BiConsumer<LinkSession, LinkMessage> inbound) {
        this.channel = channel;
        this.hubAddress = hubAddress;
        this.hubId = hubId;
        this.observedAddress = observedAddress;
        this.keepaliveNanos = TimeUnit.MILLISECONDS.toNanos(keepaliveMillis);
        this.inbound = inbound;
    }

    /** Installs this session at the end of the channel's pipeline and starts the keepalive. Call on the channel's loop. */
    void start() {
        channel.pipeline().addLast("hub-session", this);
        keepalive = channel.eventLoop()
                .scheduleAtFixedRate(this::keepalive, keepaliveNanos, keepaliveNanos, TimeUnit.NANOSECONDS);
    }

    private void keepalive() {
        long now = System.nanoTime();
        // A tick that comes late means this node's own loop (or the machine) was busy: frames may
        // be waiting unread in the socket. That time is not the hub's silence, or a busy node would
        // drop its link for its own slowness.
        long late = lastTickNanos == 0 ? 0 : now - lastTickNanos - keepaliveNanos;
        lastTickNanos = now;
        if (late > keepaliveNanos / 2) {
            lastReadNanos = Math.min(now, lastReadNanos + late);
        }
        long silent = now - Math.max(lastReadNanos, dataLinkHeardNanos);
        if (silent > DEAD_AFTER_INTERVALS * keepaliveNanos) {
            close("no frame from the hub for " + TimeUnit.NANOSECONDS.toMillis(silent) + " ms (keepalive "
                    + TimeUnit.NANOSECONDS.toMillis(keepaliveNanos) + " ms)");
            return;
        }
        channel.writeAndFlush(new Ping(System.nanoTime()));
    }

    /** The keepalive interval agreed for this link. */
    long keepaliveMillis() {
        return TimeUnit.NANOSECONDS.toMillis(keepaliveNanos);
    }

    /** The hub sent something on the data link bound to this link. Any thread. */
    void heardOnDataLink() {
        dataLinkHeardNanos = System.nanoTime();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        lastReadNanos = System.nanoTime();
        if (msg instanceof Ping p) {
            ctx.writeAndFlush(new Pong(p.token()));
        } else if (msg instanceof Pong p) {
            long rtt = System.nanoTime() - p.token();
            if (rtt >= 0 && rtt < TimeUnit.MINUTES.toNanos(10)) {
                rttNanos = rtt;
            }
        } else if (msg instanceof LinkMessage m) {
            inbound.accept(this, m);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        close("link error: " + c.getMessage());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (keepalive != null) {
            keepalive.cancel(false);
        }
        ctx.fireChannelInactive();
    }

    /** Sends a message; the returned future fails if the link is gone. Any thread. */
    ChannelFuture send(LinkMessage message) {
        return channel.writeAndFlush(message);
    }

    /** Closes the link, remembering why (for the status and the log). */
    void close(String reason) {
        if (closeReason == null) {
            closeReason = reason;
        }
        if (channel.isOpen()) {
            log.debug("Closing the link to hub {} at {}: {}", hubId, hubAddress, reason);
            channel.close();
        }
    }

    /** Why the link closed, if this side closed it. */
    String closeReason() {
        return closeReason;
    }

    /** Remembers the handshake's nonces: a data link proves it belongs to this link with them. */
    void handshakeNonces(byte[] client, byte[] server) {
        this.clientNonce = client;
        this.serverNonce = server;
    }

    byte[] clientNonce() {
        return clientNonce;
    }

    byte[] serverNonce() {
        return serverNonce;
    }

    Channel channel() {
        return channel;
    }

    InetSocketAddress hubAddress() {
        return hubAddress;
    }

    NodeId hubId() {
        return hubId;
    }

    InetSocketAddress observedAddress() {
        return observedAddress;
    }

    /** The last measured round-trip time in nanoseconds, or -1 before the first PONG. */
    long rttNanos() {
        return rttNanos;
    }

    @Override
    public String toString() {
        return "link to hub " + hubId + " at " + hubAddress;
    }
}
