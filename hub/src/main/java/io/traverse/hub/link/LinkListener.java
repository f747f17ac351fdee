package io.traverse.hub.link;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.EventExecutor;
import io.traverse.wire.LinkPipeline;
import java.net.InetSocketAddress;

/** The hub's listening port: every accepted channel gets the link codec and an {@link AcceptorHandshake}. */
public final class LinkListener {
    /** Outbound bytes queued for one link before it counts as not writable (side messages are then refused). */
    public static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);
    static final String HANDSHAKE = "link-handshake";
    /** Connections that may be in their handshake at once; more are closed on arrival (each costs at most 8 KiB and 10 s). */
    public static final int MAX_PENDING_HANDSHAKES = 1024;
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LinkListener.class);

    private Channel serverChannel;
    private volatile LinkSettings settings;
    private volatile LinkEvents events;
    private volatile EventExecutor stateLoop;
    private final java.util.concurrent.atomic.AtomicInteger pendingHandshakes = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong turnedAway = new java.util.concurrent.atomic.AtomicLong();

    private LinkListener() {
    }

    /**
     * Binds, without accepting yet: the hub's name (and so its id) may depend on the port bound.
     * Blocks the calling thread (never an event loop) until bound.
     */
    public static LinkListener bind(NettyTransport transport, EventLoopGroup group, InetSocketAddress address)
            throws InterruptedException {
        LinkListener listener = new LinkListener();
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(group)
                .channel(transport.serverChannelClass())
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (listener.pendingHandshakes.incrementAndGet() > MAX_PENDING_HANDSHAKES) {
                            listener.pendingHandshakes.decrementAndGet();
                            long n = listener.turnedAway.incrementAndGet();
                            if (n % 1000 == 1) {
                                log.warn("{} handshakes in progress: closed a connection from {} at once ({} so far)",
                                        MAX_PENDING_HANDSHAKES, ch.remoteAddress(), n);
                            }
                            ch.close();
                            return;
                        }
                        java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
                        Runnable release = () -> {
                            if (released.compareAndSet(false, true)) {
                                listener.pendingHandshakes.decrementAndGet();
                            }
                        };
                        ch.attr(LinkClosing.REJECTS_SENT).set(listener.settings.rejectsSent());
                        LinkPipeline.installCodec(ch.pipeline());
                        // gossip comes in bursts (a new link gets the whole directory): one write call per burst
                        ch.pipeline().addFirst(new FlushConsolidationHandler(256, true));
                        ch.pipeline().addLast(HANDSHAKE, new AcceptorHandshake(listener.settings, listener.events, listener.stateLoop, release));
                    }
                });
        listener.serverChannel = bootstrap.bind(address).sync().channel();
        return listener;
    }

    /** Starts accepting links. */
    public void startAccepting(LinkSettings linkSettings, LinkEvents linkEvents, EventExecutor loop) {
        this.settings = linkSettings;
        this.events = linkEvents;
        this.stateLoop = loop;
        serverChannel.config().setAutoRead(true);
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    public void close() {
        serverChannel.close().syncUninterruptibly();
    }
}
