package io.traverse.hub.link;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.EventExecutor;
import io.traverse.wire.LinkPipeline;
import java.net.InetSocketAddress;

/** The hub's listening port: every accepted channel gets the link codec and an {@link AcceptorHandshake}. */
public final class LinkListener {
    /** Outbound bytes queued for one link before it counts as not writable (side messages are then refused). */
    public static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);

    static final String HANDSHAKE = "link-handshake";
    /** Told (on the state loop) which node or hub a channel's link admitted; a long-poll session binds itself to it. */
    public static final io.netty.util.AttributeKey<java.util.function.Consumer<io.traverse.identity.NodeId>> ADMITTED =
            io.netty.util.AttributeKey.valueOf("traverse-link-admitted");

    static final String SNIFFER = "link-http-sniffer";
    /** Connections that may be in their handshake at once; more are closed on arrival (each costs at most 8 KiB and 10 s). */
    public static final int MAX_PENDING_HANDSHAKES = 1024;

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LinkListener.class);

    private Channel serverChannel;
    private volatile LinkSettings settings;
    private volatile LinkEvents events;
    private volatile EventExecutor stateLoop;
    private volatile java.util.function.Consumer<io.netty.channel.ChannelPipeline> httpInstaller;
    private final java.util.concurrent.atomic.AtomicInteger pendingHandshakes =
            new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicLong turnedAway = new java.util.concurrent.atomic.AtomicLong();

    private LinkListener() {}

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
                        // An HTTP request instead of a link preamble: a long-poll session's request (same port).
                        ch.pipeline().addLast(SNIFFER, new HttpSniffer(listener::httpPipeline));
                        listener.installLink(ch);
                    }
                });
        listener.serverChannel = bootstrap.bind(address).sync().channel();
        return listener;
    }

    /**
     * Installs on {@code ch} what every accepted link gets: the link codec and an
     * {@link AcceptorHandshake}, within the bound on handshakes in progress. Used for accepted
     * TCP connections and for the channels of long-poll sessions alike.
     */
    public void installLink(Channel ch) {
        if (pendingHandshakes.incrementAndGet() > MAX_PENDING_HANDSHAKES) {
            pendingHandshakes.decrementAndGet();
            long n = turnedAway.incrementAndGet();
            if (n % 1000 == 1) {
                log.warn(
                        "{} handshakes in progress: closed a connection from {} at once ({} so far)",
                        MAX_PENDING_HANDSHAKES,
                        ch.remoteAddress(),
                        n);
            }
            ch.close();
            return;
        }
        java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                pendingHandshakes.decrementAndGet();
            }
        };
        ch.attr(LinkClosing.REJECTS_SENT).set(settings.rejectsSent());
        LinkPipeline.installCodec(ch.pipeline());
        // gossip comes in bursts (a new link gets the whole directory): one write call per burst
        ch.pipeline().addFirst(new FlushConsolidationHandler(256, true));
        ch.pipeline().addLast(HANDSHAKE, new AcceptorHandshake(settings, events, stateLoop, release));
    }

    /** Who serves HTTP requests that arrive on the link port (long-poll sessions); null: such connections are closed. */
    public void serveHttp(java.util.function.Consumer<io.netty.channel.ChannelPipeline> installer) {
        this.httpInstaller = installer;
    }

    /** The sniffer saw an HTTP request: the link handlers go, the HTTP ones come. False when nobody serves HTTP. */
    private boolean httpPipeline(io.netty.channel.ChannelPipeline pipeline) {
        java.util.function.Consumer<io.netty.channel.ChannelPipeline> installer = httpInstaller;
        if (installer == null) {
            return false;
        }
        for (String name : new String[] {
            LinkPipeline.PREAMBLE,
            LinkPipeline.TLS,
            LinkPipeline.FRAMES,
            LinkPipeline.MESSAGES,
            LinkPipeline.ENCODER,
            LinkPipeline.RELAY_ENCODER,
            HANDSHAKE
        }) {
            if (pipeline.get(name) != null) {
                pipeline.remove(name); // the handshake's removal releases its place among the handshakes in progress
            }
        }
        installer.accept(pipeline);
        return true;
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
