package io.traverse.hub.link;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.resolver.NoopAddressResolverGroup;
import io.netty.util.concurrent.EventExecutor;
import io.traverse.protocol.Deadline;
import io.traverse.ssh.SshGateways;
import io.traverse.wire.LinkPipeline;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Dials another hub and runs the handshake. Host names are resolved on a separate executor,
 * never on an event loop (the JDK resolver blocks). A peer address that an SSH tunnel rule covers
 * is dialled through that rule's sshd: the SSH login and the local port forwarding are set up on
 * the same executor (they block too), then the link is a plain Netty connection to the forward's
 * loopback port. The link protocol frames every message, so the half-close SSH loses is not missed.
 */
public final class HubDialer {
    private final NettyTransport transport;
    private final EventLoopGroup group;
    private final LinkSettings settings;
    private final LinkEvents events;
    private final EventExecutor stateLoop;
    private final Executor resolver;
    /** Null: no peer is dialled through SSH. */
    private final SshGateways sshGateways;

    public HubDialer(
            NettyTransport transport,
            EventLoopGroup group,
            LinkSettings settings,
            LinkEvents events,
            EventExecutor stateLoop,
            Executor resolver) {
        this(transport, group, settings, events, stateLoop, resolver, null);
    }

    /** @param sshGateways the sshds through which peers in their rules' networks are dialled; null for none */
    public HubDialer(
            NettyTransport transport,
            EventLoopGroup group,
            LinkSettings settings,
            LinkEvents events,
            EventExecutor stateLoop,
            Executor resolver,
            SshGateways sshGateways) {
        this.sshGateways = sshGateways;
        this.transport = transport;
        this.group = group;
        this.settings = settings;
        this.events = events;
        this.stateLoop = stateLoop;
        this.resolver = resolver;
    }

    /** Completes with the admitted link, or exceptionally (connect failure, REJECT, timeout, refused after WELCOME). */
    public CompletableFuture<Link> dial(InetSocketAddress address) {
        CompletableFuture<Link> result = new CompletableFuture<>();
        if (!address.isUnresolved()
                && (sshGateways == null
                        || sshGateways.ruleFor(address.getAddress()).isEmpty())) {
            connect(address, result);
            return result;
        }
        try {
            resolver.execute(() -> {
                InetSocketAddress resolved = address.isUnresolved()
                        ? new InetSocketAddress(address.getHostString(), address.getPort())
                        : address;
                if (resolved.isUnresolved()) {
                    result.completeExceptionally(new UnknownHostException(address.getHostString()));
                    return;
                }
                InetSocketAddress dialled = resolved;
                if (sshGateways != null) {
                    try {
                        dialled = sshGateways
                                .forward(resolved, Deadline.after(settings.handshakeTimeout()))
                                .orElse(resolved);
                    } catch (IOException | RuntimeException e) {
                        result.completeExceptionally(e);
                        return;
                    }
                }
                connect(dialled, result);
            });
        } catch (RuntimeException rejected) {
            result.completeExceptionally(rejected);
        }
        return result;
    }

    private void connect(InetSocketAddress address, CompletableFuture<Link> result) {
        Bootstrap bootstrap = new Bootstrap()
                .group(group)
                .channel(transport.socketChannelClass())
                .resolver(NoopAddressResolverGroup.INSTANCE)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int)
                        settings.handshakeTimeout().toMillis())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, LinkListener.WATER_MARK)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.attr(LinkClosing.REJECTS_SENT).set(settings.rejectsSent());
                        LinkPipeline.installCodec(ch.pipeline());
                        // gossip comes in bursts (a new link gets the whole directory): one write call per burst
                        ch.pipeline().addFirst(new FlushConsolidationHandler(256, true));
                        ch.pipeline()
                                .addLast(
                                        LinkListener.HANDSHAKE,
                                        new DialerHandshake(settings, events, stateLoop, result));
                    }
                });
        ChannelFuture connect = bootstrap.connect(address);
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                result.completeExceptionally(f.cause());
            }
        });
    }
}
