package io.traverse.hublink;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.traverse.identity.NodeId;
import io.traverse.spi.RelayLink;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayKind;
import java.io.InterruptedIOException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link RelayLink} of a node's {@link HubLink}: RELAY frames in and out of the current link
 * session — on its data link when the hub took one ({@link DataLinkRelay}), else on the link
 * itself. While the data link is being opened, relayed frames that arrive on the link are
 * refused with a RESET: the hub sends them on the data link once it has one, and a connection
 * whose frames came on both could see them out of order.
 */
final class NodeRelayLink implements RelayLink {
    private static final Logger log = LoggerFactory.getLogger(NodeRelayLink.class);

    private final NodeId localId;
    private final EventLoop loop;
    private volatile LinkSession session;
    private volatile boolean dataLinkPending;
    private volatile DataLinkRelay data;
    private volatile Receiver receiver;

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
        DataLinkRelay d = data;
        if (d != null) {
            return d.send(frame, loop.inEventLoop());
        }
        LinkSession s = session;
        if (s == null || dataLinkPending || !s.channel().isActive()) {
            frame.release();
            return false;
        }
        s.channel().writeAndFlush(frame, s.channel().voidPromise());
        return true;
    }

    @Override
    public boolean isLinked() {
        LinkSession s = session;
        DataLinkRelay d = data;
        return s != null && s.channel().isActive() && !dataLinkPending && (d == null || d.isUp());
    }

    @Override
    public boolean readWhileWaiting(BooleanSupplier ready, long deadlineNanos) throws InterruptedIOException {
        DataLinkRelay d = data;
        if (d == null) {
            return false;
        }
        d.readWhileWaiting(ready, deadlineNanos);
        return true;
    }

    @Override
    public void wakeWaiters() {
        DataLinkRelay d = data;
        if (d != null) {
            d.wakeWaiters();
        }
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

    /** On the loop: the link is up and its data link is being opened; relays wait for it. */
    void dataLinkPending(LinkSession s) {
        session = s;
        dataLinkPending = true;
    }

    /**
     * On the loop: the link is up, with its data link or (null) without one.
     *
     * @param dataLinkBroke told when the data link breaks (the link must go too: the hub has bound the two together)
     */
    void linked(LinkSession s, HubDataLink dataLink, Consumer<String> dataLinkBroke) {
        session = s;
        if (dataLink != null) {
            DataLinkRelay d = new DataLinkRelay(dataLink, localId.toString(), this::inbound, why -> {
                Receiver r = receiver;
                if (r != null) {
                    r.linkLost(why);
                }
                dataLinkBroke.accept(why);
            });
            data = d;
            d.start();
        }
        dataLinkPending = false;
    }

    /** On the loop: a frame from the hub on the link itself. */
    void inboundOnLink(Relay frame) {
        if (dataLinkPending || data != null) {
            log.debug("Refusing {} on the hub link: relayed frames travel on the data link", frame);
            if (frame.kind() != RelayKind.RESET && frame.kind() != RelayKind.CREDIT && frame.kind() != RelayKind.PONG) {
                LinkSession s = session;
                if (s != null) {
                    s.channel().writeAndFlush(frame.resetToSender("node " + localId + " is not ready for relayed connections yet"),
                            s.channel().voidPromise());
                }
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

    /** The data link's reading and writing, while there is one (for tests). */
    DataLinkRelay dataLinkRelay() {
        return data;
    }

    /** On the loop: the link is gone (and its data link with it). */
    void linkLost(String reason) {
        session = null;
        dataLinkPending = false;
        DataLinkRelay d = data;
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
