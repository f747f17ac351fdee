package io.traverse.hublink;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.traverse.identity.NodeId;
import io.traverse.spi.RelayLink;
import io.traverse.wire.Relay;
import io.traverse.wire.RelayKind;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link RelayLink} of a node's {@link HubLink}: RELAY frames in and out of the current link session. */
final class NodeRelayLink implements RelayLink {
    private static final Logger log = LoggerFactory.getLogger(NodeRelayLink.class);

    private final NodeId localId;
    private final EventLoop loop;
    private volatile LinkSession session;
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
        LinkSession s = session;
        if (s == null || !s.channel().isActive()) {
            frame.release();
            return false;
        }
        s.channel().writeAndFlush(frame, s.channel().voidPromise());
        return true;
    }

    @Override
    public boolean isLinked() {
        LinkSession s = session;
        return s != null && s.channel().isActive();
    }

    @Override
    public ScheduledExecutorService loop() {
        return loop;
    }

    @Override
    public ByteBufAllocator allocator() {
        LinkSession s = session;
        return s != null ? s.channel().alloc() : ByteBufAllocator.DEFAULT;
    }

    /** On the loop: the link is up. */
    void linked(LinkSession s) {
        session = s;
    }

    /** On the loop: a frame from the hub. */
    void inbound(Relay frame) {
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

    /** On the loop: the link is gone. */
    void linkLost(String reason) {
        session = null;
        Receiver r = receiver;
        if (r != null) {
            r.linkLost(reason);
        }
    }
}
