package io.traverse.hublink;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.traverse.hublink.transport.HubDataLink;
import io.traverse.identity.NodeId;
import io.traverse.spi.RelayLink;
import io.traverse.wire.DataLinkSwitch;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayKind;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link RelayLink} of a node's {@link HubLink}: RELAY frames in and out of the current link
 * session — on its data link once both ends have switched to it ({@link DataLinkRelay}), else on
 * the link itself. Relayed connections work from the moment the link is up; the data link takes
 * over when it is open, one direction at a time, without reordering a connection's frames: the
 * node sends DATA_LINK_SWITCH on the link after every frame it sent there and then sends on the
 * data link; the hub answers with its own DATA_LINK_SWITCH after every frame it sent on the link,
 * and only then does the node read the data link (docs/protocol.md, "Data links").
 */
final class NodeRelayLink implements RelayLink {
    private static final Logger log = LoggerFactory.getLogger(NodeRelayLink.class);

    private final NodeId localId;
    private final EventLoop loop;
    private volatile LinkSession session;
    /** The data link, once this node has switched its sending to it. */
    private volatile DataLinkRelay sending;
    /** The data link, once the hub has switched its sending to it too: from then on it is read. */
    private volatile DataLinkRelay data;
    /**
     * Senders on the link hold the read lock while they queue a frame; the switch takes the write
     * lock, so DATA_LINK_SWITCH is queued after every frame given to the link before it.
     */
    private final ReentrantReadWriteLock switching = new ReentrantReadWriteLock();

    private volatile Receiver receiver;
    /** The data link's keepalive PINGs (on the loop), while there is a data link. */
    private volatile java.util.concurrent.ScheduledFuture<?> dataLinkPings;

    NodeRelayLink(NodeId localId, EventLoop loop) {
        this.localId = localId;
        this.loop = loop;
    }

    @Override
    public NodeId localId() {
        return localId;
    }

    @Override
    public void receiveWith(Receiver receiver) {
        this.receiver = receiver;
    }

    @Override
    public boolean send(Relay frame) {
        DataLinkRelay d = sending;
        if (d == null) {
            ReentrantReadWriteLock.ReadLock onLink = switching.readLock();
            onLink.lock();
            try {
                d = sending;
                if (d == null) {
                    LinkSession s = session;
                    if (s == null || !s.channel().isActive()) {
                        frame.release();
                        return false;
                    }
                    s.channel().writeAndFlush(frame, s.channel().voidPromise());
                    return true;
                }
            } finally {
                onLink.unlock();
            }
        }
        return d.send(frame, loop.inEventLoop());
    }

    @Override
    public boolean isLinked() {
        LinkSession s = session;
        DataLinkRelay d = sending;
        return s != null && s.channel().isActive() && (d == null || d.isUp());
    }

    @Override
    public ScheduledExecutorService loop() {
        return loop;
    }

    @Override
    public ByteBufAllocator allocator() {
        LinkSession s = session;
        return s != null ? s.channel().alloc() : PooledByteBufAllocator.DEFAULT;
    }

    /** On the loop: the link is up; relayed frames travel on it until the data link takes over. */
    void linkOpened(LinkSession s) {
        session = s;
    }

    /**
     * On the loop: the data link of link {@code s} is open. This node switches its sending to it
     * now, and starts reading it when the hub has switched too ({@link #hubSwitched}).
     *
     * @param dataLinkBroke told when the data link breaks (the link must go too: the hub has bound the two together)
     */
    void switchToDataLink(LinkSession s, HubDataLink dataLink, Consumer<String> dataLinkBroke) {
        DataLinkRelay d = new DataLinkRelay(
                dataLink,
                localId.toString(),
                this::inbound,
                why -> {
                    Receiver r = receiver;
                    if (r != null) {
                        r.linkLost(why);
                    }
                    dataLinkBroke.accept(why);
                },
                s::heardOnDataLink);
        d.startWriting();
        long every = s.keepaliveMillis();
        dataLinkPings = loop.scheduleAtFixedRate(d::ping, every, every, java.util.concurrent.TimeUnit.MILLISECONDS);
        ReentrantReadWriteLock.WriteLock noSenders = switching.writeLock();
        noSenders.lock();
        try {
            sending = d;
            // Behind the frames other threads queued on the link's loop before the switch (even when this is that
            // loop).
            s.channel()
                    .eventLoop()
                    .execute(() -> s.channel()
                            .writeAndFlush(new DataLinkSwitch(), s.channel().voidPromise()));
        } finally {
            noSenders.unlock();
        }
    }

    /**
     * On the loop: the hub's DATA_LINK_SWITCH, after every frame it sent on the link. The data
     * link is read from now on; a hub that switches a node that did not is broken, and the link goes.
     *
     * @return false if the switch was out of place (the link is closing)
     */
    boolean hubSwitched(LinkSession s) {
        DataLinkRelay d = sending;
        if (session != s) {
            return false; // a link that is going already
        }
        if (d == null || data != null) {
            s.close("the hub sent DATA_LINK_SWITCH "
                    + (data != null ? "twice" : "though this node has no data link to it"));
            return false;
        }
        data = d;
        d.startReading();
        log.debug("Relayed frames to and from hub {} travel on the data link", s.hubId());
        return true;
    }

    /** On the loop: a frame from the hub on the link itself. */
    void inboundOnLink(Relay frame) {
        if (data != null) {
            // The hub switched: everything it sends after its DATA_LINK_SWITCH goes on the data link.
            log.debug("Refusing {} on the hub link after the hub switched to the data link", frame);
            if (frame.kind() != RelayKind.RESET && frame.kind() != RelayKind.CREDIT && frame.kind() != RelayKind.PONG) {
                // On the data link, like everything this node sends once it has switched.
                send(frame.resetToSender("node " + localId + " takes relayed frames on its data link only"));
            }
            ReferenceCountUtil.release(frame);
            return;
        }
        inbound(frame);
    }

    /** A frame from the hub, on the loop or the thread reading the data link. */
    private void inbound(Relay frame) {
        Receiver r = receiver;
        if (r == null) {
            // Without the routed module nothing here takes relayed connections: say so, or the opener would wait.
            log.debug("No routed module to take {}", frame);
            if (frame.kind() != RelayKind.RESET && frame.kind() != RelayKind.CREDIT && frame.kind() != RelayKind.PONG) {
                send(frame.resetToSender("node " + localId + " does not take relayed connections (no routed module)"));
            }
            ReferenceCountUtil.release(frame);
            return;
        }
        r.frame(frame);
    }

    /** The current link session, or null (for tests). */
    LinkSession session() {
        return session;
    }

    /** The data link's reading and writing, once both ends have switched to it (for tests). */
    DataLinkRelay dataLinkRelay() {
        return data;
    }

    /** On the loop: the link is gone (and its data link with it). */
    void linkLost(String reason) {
        session = null;
        java.util.concurrent.ScheduledFuture<?> pings = dataLinkPings;
        dataLinkPings = null;
        if (pings != null) {
            pings.cancel(false);
        }
        DataLinkRelay d = sending;
        sending = null;
        data = null;
        if (d != null) {
            d.close(reason);
        }
        Receiver r = receiver;
        if (r != null) {
            r.linkLost(reason);
        }
    }
}
