package io.traverse.hub.link;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.util.ReferenceCountUtil;
import io.traverse.identity.NodeId;
import io.traverse.longpolling.SessionChannel;
import io.traverse.wire.Hello;
import io.traverse.wire.LinkMessage;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import java.net.InetSocketAddress;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An authenticated link to a node or another hub. Sending is safe from any thread (Netty queues
 * writes on the channel's loop). What the far end said in its HELLO is kept for hubs that
 * accepted it; a link we dialled knows the far end by the CHALLENGE's id.
 */
public final class Link {
    /**
     * Outbound bytes beyond the high water mark after which a link counts as dead: above what the
     * relay lets queue on one link ({@code DeliveryWindow.MAX_LINK_QUEUE}, 48 MiB).
     */
    static final long MAX_UNREAD_BYTES = 64L * 1024 * 1024;

    private static final AtomicLong SEQUENCE = new AtomicLong();

    private final long serial = SEQUENCE.incrementAndGet();
    private final LinkKind kind;
    private final NodeId peerId;
    private final Channel channel;
    private final InetSocketAddress remoteAddress;
    private final boolean dialledByUs;
    private final Hello hello;
    private final Keepalive keepalive;
    private final AtomicInteger readHolds = new AtomicInteger();
    /** RELAY frames read on this link and handed to the state loop, not yet sent on; confined to the link's event loop. */
    private int relayFramesPending;

    private final Queue<Runnable> writableWaiters = new ConcurrentLinkedQueue<>();
    /** The nonces of an accepted link's handshake (a node's data link proves it knows them). */
    private volatile byte[] clientNonce;

    private volatile byte[] serverNonce;
    /**
     * Whether RELAY frames read on this link may be relayed: not on a node's data link before
     * the node's DATA_LINK_SWITCH, nor on its link after it (the state loop refuses them).
     */
    private volatile boolean carriesRelays;
    /** For a data link: whether its AUTH proof binds it to a given node link. */
    private volatile java.util.function.Predicate<Link> binding = other -> false;

    Link(LinkKind kind, NodeId peerId, Channel channel, boolean dialledByUs, Hello hello, Keepalive keepalive) {
        this.kind = kind;
        this.peerId = peerId;
        this.channel = channel;
        this.remoteAddress = channel.remoteAddress() instanceof InetSocketAddress inet ? inet : null;
        this.dialledByUs = dialledByUs;
        this.hello = hello;
        this.keepalive = keepalive;
        this.carriesRelays = kind != LinkKind.NODE_DATA;
    }

    /** False while RELAY frames read on this link must not be relayed (see {@link #carriesRelays(boolean)}). */
    public boolean carriesRelays() {
        return carriesRelays;
    }

    /** A node switched its RELAY frames from its link to its data link: false for the one, true for the other. */
    public void carriesRelays(boolean carries) {
        this.carriesRelays = carries;
    }

    void handshake(byte[] client, byte[] server) {
        this.clientNonce = client;
        this.serverNonce = server;
    }

    void binding(java.util.function.Predicate<Link> check) {
        this.binding = check;
    }

    byte[] clientNonce() {
        return clientNonce;
    }

    byte[] serverNonce() {
        return serverNonce;
    }

    /**
     * For a data link: true if its AUTH proof was made with the network token and the nonces of
     * {@code nodeLink}'s handshake, i.e. by the node that made that link (docs/protocol.md, "Data links").
     */
    public boolean isBoundTo(Link nodeLink) {
        return kind == LinkKind.NODE_DATA && nodeLink.clientNonce != null && binding.test(nodeLink);
    }

    public LinkKind kind() {
        return kind;
    }

    /** The node or hub id of the far end. */
    public NodeId peerId() {
        return peerId;
    }

    /** The address and port this link came from, as this hub saw it (null if not an IP link). */
    public InetSocketAddress remoteAddress() {
        return remoteAddress;
    }

    /** True if this hub dialled the link, false if it accepted it. */
    public boolean dialledByUs() {
        return dialledByUs;
    }

    /** The HELLO of an accepted link; null for links we dialled. */
    public Hello hello() {
        return hello;
    }

    public Channel channel() {
        return channel;
    }

    public boolean isOpen() {
        return channel.isActive();
    }

    /** Whether this link is a long-poll session (whose queue for its node is bounded more tightly). */
    public boolean isLongPollSession() {
        return channel instanceof SessionChannel;
    }

    /** False while the far end does not read fast enough (the outbound buffer is over its high mark). */
    public boolean isWritable() {
        return channel.isWritable();
    }

    /**
     * Stops reading this link until {@code blocked} can take more (relay backpressure: a hub
     * stops reading what it cannot pass on rather than queueing it). Holds nest; reading resumes
     * when the last is let go. Any thread. The hold is bounded: held time is not this link's
     * silence to its keepalive, and a link that takes nothing for 10 keepalive intervals is
     * closed as not reading ({@link Keepalive}), which lets every link held for it read again —
     * the one that does not read goes, not those that wait for it.
     */
    public void holdReadingUntilWritable(Link blocked) {
        holdReading();
        blocked.writableWaiters.add(this::releaseReadHold);
        if (blocked.channel.isWritable() || !blocked.channel.isActive()) {
            blocked.wakeWritableWaiters();
        }
    }

    /** Stops reading this link until {@link #releaseReadHold()}; holds nest. Any thread. */
    public void holdReading() {
        if (readHolds.getAndIncrement() == 0) {
            channel.config().setAutoRead(false);
            if (keepalive != null) {
                keepalive.readingHeld(true);
            }
        }
    }

    /** Lets go of one {@link #holdReading()}. Any thread. */
    public void releaseReadHold() {
        if (readHolds.decrementAndGet() == 0) {
            if (keepalive != null) {
                keepalive.readingHeld(false);
            }
            channel.config().setAutoRead(true);
        }
    }

    /**
     * Frames of one link are sent on in the order they were read: a frame may skip the state loop
     * only while none read before it is still there. Event loop of this link only.
     */
    public boolean relayFramesPending() {
        return relayFramesPending > 0;
    }

    /** A RELAY frame read on this link went to the state loop. Event loop of this link only. */
    void relayFrameHandedOver() {
        relayFramesPending++;
    }

    /** The state loop is done with a RELAY frame of this link (it queued its sending first). Event loop of this link only. */
    void relayFrameDone() {
        relayFramesPending--;
    }

    /** Runs a task on this link's event loop (after the tasks queued before it). */
    public void execute(Runnable task) {
        channel.eventLoop().execute(task);
    }

    /** This link can take more again, or is closed: lets the links waiting for it read again. */
    void wakeWritableWaiters() {
        Runnable waiter;
        while ((waiter = writableWaiters.poll()) != null) {
            waiter.run();
        }
    }

    /** Bytes queued for this link beyond the point where it stops being writable. */
    public long bytesOverHighWaterMark() {
        return channel.isWritable() ? 0 : channel.bytesBeforeWritable();
    }

    /** The last measured round-trip time in microseconds, or -1 before the first PONG. */
    public long rttMicros() {
        return keepalive == null ? -1 : keepalive.rttMicros();
    }

    /**
     * Queues a message. A peer that lets more than {@link #MAX_UNREAD_BYTES} pile up beyond the
     * high water mark does not read at all: its link is closed rather than buffered without end.
     */
    public void send(LinkMessage message) {
        if (!channel.isWritable() && channel.bytesBeforeWritable() > MAX_UNREAD_BYTES) {
            ReferenceCountUtil.release(message);
            close(RejectCode.LIMIT, "the link does not read what it is sent");
            return;
        }
        channel.writeAndFlush(message, channel.voidPromise());
    }

    /**
     * Queues a message as {@link #send(LinkMessage)} does, and runs {@code written} on this link's
     * loop once it is written to the socket (not if the link fails first).
     */
    public void send(LinkMessage message, Runnable written) {
        if (!channel.isWritable() && channel.bytesBeforeWritable() > MAX_UNREAD_BYTES) {
            ReferenceCountUtil.release(message);
            close(RejectCode.LIMIT, "the link does not read what it is sent");
            return;
        }
        channel.writeAndFlush(message).addListener(f -> {
            if (f.isSuccess()) {
                written.run();
            } else {
                channel.pipeline().fireExceptionCaught(f.cause()); // as a void promise does
            }
        });
    }

    /**
     * Runs {@code done} on this link's loop once everything queued on this link before it is
     * written to the socket (an empty write: writes complete in order; a write another thread has
     * not handed to this link's loop yet is not covered), or once the link failed: what waited for
     * it is gone either way, and whoever waits for the barrier must not wait forever.
     */
    public void sendBarrier(Runnable done) {
        channel.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(f -> done.run());
    }

    /**
     * Queues a frame encoded once for many links ({@link io.traverse.wire.LinkMessageEncoder#frame});
     * takes over one reference of {@code frame}.
     */
    public void sendFrame(ByteBuf frame) {
        if (!channel.isWritable() && channel.bytesBeforeWritable() > MAX_UNREAD_BYTES) {
            frame.release();
            close(RejectCode.LIMIT, "the link does not read what it is sent");
            return;
        }
        channel.writeAndFlush(frame, channel.voidPromise());
    }

    /** Sends a REJECT with a reason and closes the link once it is written (or after a second, if the peer does not read). */
    public void close(RejectCode code, String reason) {
        LinkClosing.rejectAndClose(channel, Reject.of(code, reason));
    }

    public void close() {
        channel.close();
    }

    /** A number that orders links by creation, to tell an old link of a peer from a new one. */
    public long serial() {
        return serial;
    }

    @Override
    public String toString() {
        return kind.toString().toLowerCase(java.util.Locale.ROOT) + " " + peerId + " ("
                + (dialledByUs ? "to " : "from ") + remoteAddress + ")";
    }
}
