package io.traverse.longpolling;

import io.netty.buffer.ByteBuf;
import io.netty.channel.AbstractChannel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelMetadata;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.EventLoop;
import io.netty.channel.WriteBufferWaterMark;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;

/**
 * A Netty channel whose byte stream travels in the bodies of HTTP requests (a long-poll session)
 * instead of a socket, so the link pipeline on top of it (preamble, frames, handshake, keepalive)
 * is exactly that of a TCP link. It has no I/O of its own and registers on any event loop.
 *
 * <p>Written bytes go to {@link #outgoing()}, at most {@code window} bytes not yet acknowledged
 * by the far side; beyond that they stay in the channel's outbound buffer, which makes the channel
 * not writable at its water mark, as a socket whose send buffer is full would. More than
 * {@code maxUnacknowledged} bytes in both together fail the session: a peer that ignores
 * writability cannot make it buffer without limit. Received bytes ({@link #receive}) are handed
 * to the pipeline when it reads (auto-read or {@code read()}), so a pipeline that stops reading
 * holds them here, and {@link #inboundBytes()} lets the session stop taking more.
 *
 * <p>Everything but construction runs on the channel's event loop.
 */
public final class SessionChannel extends AbstractChannel {
    /** What the session does when the channel has something for it. Called on the channel's loop. */
    public interface Pump {
        /** New bytes in {@link #outgoing()}. */
        void outputAvailable();

        /** The pipeline read what was queued; {@link #inboundBytes()} is what remains. */
        void inputConsumed();

        /** The channel closed (by the pipeline, or by {@link #fail}). */
        void closed();
    }

    private static final ChannelMetadata METADATA = new ChannelMetadata(false);
    /** Bytes handed to the pipeline per read, at most (a socket read is bounded too). */
    private static final int READ_BUDGET = 256 * 1024;

    private final DefaultChannelConfig config = new DefaultChannelConfig(this);
    private final StreamBytes outgoing = new StreamBytes();
    private final ArrayDeque<ByteBuf> inbound = new ArrayDeque<>();
    private final long window;
    private final long maxUnacknowledged;
    private final InetSocketAddress local;
    private volatile InetSocketAddress remote;
    private Pump pump;
    private volatile boolean open = true;
    private long inboundBytes;
    private boolean readRequested;
    private boolean deliveryScheduled;
    private volatile String failure;

    /**
     * @param local             the address the channel reports as its own
     * @param remote            the peer's address (for the hub: where the HTTP requests come from)
     * @param window            outgoing bytes held for acknowledgement before the rest waits in the outbound buffer
     * @param maxUnacknowledged outgoing bytes (held plus waiting) beyond which the session fails
     */
    public SessionChannel(
            InetSocketAddress local,
            InetSocketAddress remote,
            long window,
            long maxUnacknowledged,
            WriteBufferWaterMark waterMark) {
        super(null);
        this.local = local;
        this.remote = remote;
        this.window = window;
        this.maxUnacknowledged = maxUnacknowledged;
        config.setWriteBufferWaterMark(waterMark);
    }

    /** Set before registration. */
    public void pump(Pump p) {
        this.pump = p;
    }

    /** Outgoing bytes not yet acknowledged. */
    public StreamBytes outgoing() {
        return outgoing;
    }

    /** The far side has every outgoing byte before {@code offset}: drop them and take more from the outbound buffer. */
    public void acknowledge(long offset) {
        outgoing.acknowledge(offset);
        if (open
                && unsafe().outboundBuffer() != null
                && !unsafe().outboundBuffer().isEmpty()) {
            ((SessionUnsafe) unsafe()).resume();
        }
    }

    /** Bytes from the far side, in order; ownership passes to the channel. */
    public void receive(ByteBuf bytes) {
        if (!open) {
            bytes.release();
            return;
        }
        inbound.addLast(bytes);
        inboundBytes += bytes.readableBytes();
        if (readRequested) {
            deliver();
        }
    }

    /** Received bytes the pipeline has not read yet. */
    public long inboundBytes() {
        return inboundBytes;
    }

    /** Ends the session with a reason (kept for {@link #failure()}) and closes the channel. */
    public void fail(String reason) {
        if (failure == null && open) {
            failure = reason;
        }
        close();
    }

    /** Why the session failed, or null. */
    public String failure() {
        return failure;
    }

    /** The peer's address changed (a new HTTP connection, e.g. after a proxy restart). */
    public void remote(InetSocketAddress address) {
        remote = address;
    }

    private void deliver() {
        deliveryScheduled = false;
        if (!readRequested || inbound.isEmpty() || !isActive()) {
            return;
        }
        readRequested = false;
        int budget = READ_BUDGET;
        ByteBuf next;
        while (budget > 0 && (next = inbound.pollFirst()) != null) {
            int n = next.readableBytes();
            inboundBytes -= n;
            budget -= n;
            pipeline().fireChannelRead(next);
        }
        pipeline().fireChannelReadComplete();
        if (pump != null) {
            pump.inputConsumed();
        }
    }

    @Override
    protected void doBeginRead() {
        readRequested = true;
        if (!inbound.isEmpty() && !deliveryScheduled) {
            deliveryScheduled = true;
            eventLoop().execute(this::deliver);
        }
    }

    @Override
    protected void doWrite(ChannelOutboundBuffer in) {
        boolean took = false;
        for (; ; ) {
            Object msg = in.current();
            if (msg == null) {
                break;
            }
            if (!(msg instanceof ByteBuf buf)) {
                in.remove(new UnsupportedOperationException("a session channel carries bytes only, not "
                        + msg.getClass().getName()));
                continue;
            }
            int readable = buf.readableBytes();
            if (readable == 0) {
                in.remove();
                continue;
            }
            long room = window - outgoing.size();
            if (room <= 0) {
                break;
            }
            int n = (int) Math.min(room, readable);
            outgoing.append(buf.retainedSlice(buf.readerIndex(), n));
            in.removeBytes(n);
            took = true;
        }
        long held = outgoing.size() + in.totalPendingWriteBytes();
        if (held > maxUnacknowledged) {
            String why =
                    "more than " + maxUnacknowledged + " bytes are waiting for the other side to acknowledge them ("
                            + held + "): it stopped taking them";
            eventLoop().execute(() -> fail(why));
            return;
        }
        if (took && pump != null) {
            pump.outputAvailable();
        }
    }

    @Override
    protected boolean isCompatible(EventLoop loop) {
        return true; // no I/O of its own: any event loop will do
    }

    @Override
    protected SocketAddress localAddress0() {
        return local;
    }

    @Override
    protected SocketAddress remoteAddress0() {
        return remote;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote; // not cached: it follows the HTTP peer
    }

    @Override
    protected void doBind(SocketAddress localAddress) {
        throw new UnsupportedOperationException("a session channel is not bound");
    }

    @Override
    protected void doDisconnect() {
        doClose();
    }

    @Override
    protected void doClose() {
        if (!open) {
            return;
        }
        open = false;
        outgoing.clear();
        inbound.forEach(ByteBuf::release);
        inbound.clear();
        inboundBytes = 0;
        if (pump != null) {
            Pump p = pump;
            eventLoop().execute(p::closed);
        }
    }

    @Override
    protected AbstractUnsafe newUnsafe() {
        return new SessionUnsafe();
    }

    @Override
    public ChannelConfig config() {
        return config;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public boolean isActive() {
        return open && isRegistered();
    }

    @Override
    public ChannelMetadata metadata() {
        return METADATA;
    }

    private final class SessionUnsafe extends AbstractUnsafe {
        @Override
        public void connect(SocketAddress remoteAddress, SocketAddress localAddress, ChannelPromise promise) {
            promise.setFailure(new UnsupportedOperationException("a session channel is connected when it is made"));
        }

        /** Takes what waits in the outbound buffer now that the window has room. */
        void resume() {
            flush0();
        }
    }
}
