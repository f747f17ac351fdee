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
    static final String BEGUN = "link-preamble-seen";
    /** Connections that may be in their handshake at once by default (each costs at most 8 KiB and the handshake timeout). */
    public static final int MAX_PENDING_HANDSHAKES = 1024;

    private Channel serverChannel;
    private volatile LinkSettings settings;
    private volatile LinkEvents events;
    private volatile EventExecutor stateLoop;
    private volatile java.util.function.Consumer<io.netty.channel.ChannelPipeline> httpInstaller;
    /** Connections in their handshake or before their first HTTP request: bounded, a flood is cycled out. */
    private volatile PendingConnections pending = new PendingConnections(
            "link port", io.traverse.hub.AdmissionLimit.HANDSHAKES, MAX_PENDING_HANDSHAKES, null, 0, limit -> {});

    private volatile java.time.Duration httpRequestTimeout = java.time.Duration.ofSeconds(10);
    /** Set on a channel whose first bytes were an HTTP request: its place among the pending is kept until that request's head is read. */
    private static final io.netty.util.AttributeKey<Boolean> TO_HTTP =
            io.netty.util.AttributeKey.valueOf("traverse-link-to-http");

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
                        if (!listener.pending.admit(ch)) {
                            return; // closed: its address has its most of connections waiting
                        }
                        // An HTTP request instead of a link preamble: a long-poll session's request (same port).
                        ch.pipeline().addLast(SNIFFER, new HttpSniffer(listener::httpPipeline));
                        listener.installHandlers(ch);
                    }
                });
        listener.serverChannel = bootstrap.bind(address).sync().channel();
        return listener;
    }

    /**
     * Installs on {@code ch} what every accepted link gets: the link codec and an
     * {@link AcceptorHandshake}, within the bound on connections waiting ({@link PendingConnections}).
     * Used for the channels of long-poll sessions (accepted TCP connections get the same): they count
     * toward the bound on all, not toward their address's, as nodes behind one HTTP proxy share its
     * address and a long-poll handshake takes several requests.
     */
    public void installLink(Channel ch) {
        if (pending.admit(ch, false)) {
            installHandlers(ch);
        }
    }

    /**
     * The bounds on connections waiting for their handshake or first HTTP request on this port,
     * and the deadline for an HTTP request's head on it. Before {@link #startAccepting}.
     */
    public void limits(PendingConnections pendingConnections, java.time.Duration requestTimeout) {
        this.pending = pendingConnections;
        this.httpRequestTimeout = requestTimeout;
    }

    /** Connections waiting for their handshake or first HTTP request now. */
    public PendingConnections pending() {
        return pending;
    }

    private void installHandlers(Channel ch) {
        // The handshake's end gives the place back, unless the connection turned out to be HTTP: then the head of
        // its first request does (HttpRequestDeadline), or its closing.
        Runnable release = () -> {
            if (!ch.hasAttr(TO_HTTP)) {
                PendingConnections.release(ch);
            }
        };
        ch.attr(LinkClosing.REJECTS_SENT).set(settings.rejectsSent());
        LinkPipeline.installCodec(ch.pipeline());
        // gossip comes in bursts (a new link gets the whole directory): one write call per burst
        ch.pipeline().addFirst(new FlushConsolidationHandler(256, true));
        ch.pipeline().addLast(BEGUN, new PreambleSeen());
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
        pipeline.channel().attr(TO_HTTP).set(Boolean.TRUE);
        for (String name : new String[] {
            LinkPipeline.PREAMBLE,
            LinkPipeline.TLS,
            LinkPipeline.FRAMES,
            LinkPipeline.MESSAGES,
            LinkPipeline.ENCODER,
            LinkPipeline.RELAY_ENCODER,
            BEGUN,
            HANDSHAKE
        }) {
            if (pipeline.get(name) != null) {
                pipeline.remove(name); // the handshake's timeout goes with it: HttpRequestDeadline takes over
            }
        }
        installer.accept(pipeline);
        HttpRequestDeadline deadline = new HttpRequestDeadline(httpRequestTimeout);
        io.netty.channel.ChannelHandlerContext codec =
                pipeline.context(io.netty.handler.codec.http.HttpServerCodec.class);
        pipeline.addBefore(codec.name(), "http-request-deadline", deadline.bytes());
        pipeline.addAfter(codec.name(), "http-request-head", deadline.requests());
        return true;
    }

    /** Tells the connection's place among the pending that its whole preamble came ({@link PendingConnections.Slot#begun()}), then goes. */
    private static final class PreambleSeen extends io.netty.channel.ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof io.traverse.wire.LinkPreamble) {
                PendingConnections.Slot slot =
                        ctx.channel().attr(PendingConnections.SLOT).get();
                if (slot != null) {
                    slot.begun();
                }
                ctx.pipeline().remove(this);
            }
            ctx.fireChannelRead(msg);
        }
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
