package io.traverse.hublink.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.traverse.TraverseConfig;
import io.traverse.config.HttpProxy;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.longpolling.SessionChannel;
import io.traverse.security.LinkTls;
import io.traverse.settings.LongPollSettings;
import io.traverse.spi.HttpTransport;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkPipeline;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt to link to one hub, from its address to a channel that finished the link handshake
 * (OkHttp's {@code ConnectPlan} is the model): it resolves the hub and the HTTP proxy that applies
 * to it, connects by TCP, through the proxy's CONNECT, or by a long-poll session (when the proxy
 * refused CONNECT, or always with {@code traverse.http.tunnel=longpoll}), and runs
 * {@link NodeLinkHandshake} on what it got. {@code io.traverse.hublink.HubLink} runs the rounds of these attempts, and
 * the link that comes of the winner.
 *
 * <p>Confined to the link's event loop, as the link is. The result completes on that loop, so that
 * the link's session handler is in the pipeline before the frames that follow WELCOME in the same
 * read are passed on.
 */
public final class HubLinkDial {
    private static final Logger log = LoggerFactory.getLogger(HubLinkDial.class);

    /** A finished handshake: the channel, what the hub said, and how the link reaches it. */
    public record Linked(
            InetSocketAddress resolved,
            ProxyRoute proxy,
            Channel channel,
            NodeLinkHandshake.Outcome outcome,
            String longPollRoute) {}

    /**
     * What every attempt of one link shares.
     *
     * @param tls the node's TLS under its key, made on first use
     * @param connectRefused hubs whose CONNECT the proxy refused: reached by long-poll sessions
     *     from then on (confined to the loop)
     * @param proxyAnswers told what the proxy answered a CONNECT
     */
    public record Setup(
            EventLoop loop,
            TraverseConfig config,
            NodeId nodeId,
            Function<InetSocketAddress, NodeIdentity> identityWithHub,
            LinkAuthentication authentication,
            Supplier<LinkTls> tls,
            Set<InetSocketAddress> connectRefused,
            Consumer<String> proxyAnswers) {}

    private final Setup setup;
    private final InetSocketAddress hub;
    private final List<Channel> channels = new ArrayList<>();
    private final CompletableFuture<Linked> result = new CompletableFuture<>();
    private boolean cancelled;

    public HubLinkDial(Setup setup, InetSocketAddress hub) {
        this.setup = setup;
        this.hub = hub;
    }

    /**
     * Starts the attempt. The future completes on the loop with the linked channel, or fails with
     * a {@link HubLinkException} saying which hub and why.
     */
    public CompletableFuture<Linked> start() {
        HttpProxy proxy = proxyFor(hub);
        CompletableFuture<InetSocketAddress> proxyAddress = proxy == null
                ? CompletableFuture.completedFuture(null)
                : resolve(InetSocketAddress.createUnresolved(proxy.host(), proxy.port()));
        resolve(hub)
                .thenCombine(proxyAddress, (resolved, viaProxy) -> new Object[] {resolved, viaProxy})
                .whenComplete((both, failure) -> setup.loop().execute(() -> {
                    if (cancelled) {
                        return;
                    }
                    if (failure != null) {
                        Throwable cause = HubLinkException.unwrap(failure);
                        fail(
                                proxyAddress.isCompletedExceptionally()
                                        ? "cannot resolve HTTP proxy " + proxy.authority() + " (" + proxy.origin()
                                                + "): " + cause.getMessage()
                                        : "cannot resolve hub " + hub.getHostString() + ": " + cause.getMessage(),
                                false);
                    } else {
                        InetSocketAddress resolved = (InetSocketAddress) both[0];
                        dial(resolved, proxy == null ? null : new ProxyRoute(proxy, (InetSocketAddress) both[1]));
                    }
                }));
        return result;
    }

    /** On the loop: closes what the attempt opened, unless it is the channel it linked. */
    public void cancel(Channel keep) {
        cancelled = true;
        for (Channel c : channels) {
            if (c != keep) {
                c.close();
            }
        }
    }

    /** Hub host names are resolved off the event loop (DNS blocks). */
    private static CompletableFuture<InetSocketAddress> resolve(InetSocketAddress hub) {
        if (!hub.isUnresolved()) {
            return CompletableFuture.completedFuture(hub);
        }
        try {
            return CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return new InetSocketAddress(InetAddress.getByName(hub.getHostString()), hub.getPort());
                        } catch (UnknownHostException e) {
                            throw new CompletionException(e);
                        }
                    },
                    LinkEventLoops.resolver());
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The proxy to reach {@code hub} through, or null when none is set or the hub is one of the non-proxy hosts. */
    private HttpProxy proxyFor(InetSocketAddress hub) {
        HttpProxy proxy = setup.config().httpProxy().orElse(null);
        return proxy != null && proxy.appliesTo(hub.getHostString()) ? proxy : null;
    }

    private void fail(String why, boolean refusedForSetting) {
        result.completeExceptionally(new HubLinkException(why, refusedForSetting));
    }

    private void dial(InetSocketAddress resolved, ProxyRoute proxy) {
        LongPollSettings longPoll = setup.config().longPoll();
        if (longPoll.always()
                || (proxy != null
                        && longPoll.fallBack()
                        && setup.connectRefused().contains(resolved))) {
            dialLongPoll(resolved, proxy);
            return;
        }
        CompletableFuture<NodeLinkHandshake.Outcome> handshake = new CompletableFuture<>();
        long timeoutMillis = setup.config().hubTimeout().toMillis();
        String identityText = setup.identityWithHub().apply(resolved).toText();
        Bootstrap bootstrap = new Bootstrap()
                .group(setup.loop())
                .channel(LinkEventLoops.channelClass())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, timeoutMillis))
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (proxy != null) {
                            tunnel(ch.pipeline(), proxy.to(resolved), timeoutMillis, handshake);
                        }
                        installLink(ch.pipeline(), resolved, identityText, timeoutMillis, handshake);
                    }
                });
        ChannelFuture connect = bootstrap.connect(resolved);
        Channel channel = connect.channel();
        channels.add(channel);
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                handshake.completeExceptionally(new HubLinkException(
                        (proxy == null
                                        ? "cannot reach hub at " + resolved
                                        : "cannot reach " + proxy + " ("
                                                + proxy.proxy().origin() + ") for hub " + resolved)
                                + ": "
                                + f.cause().getMessage(),
                        f.cause()));
            }
        });
        // Completed on the channel's loop (ours): run inline, so that the session handler is in
        // the pipeline before the frames that follow WELCOME in the same read are passed on.
        handshake.whenComplete((outcome, failure) -> onLoop(() -> {
            if (failure != null
                    && failure.getCause() instanceof HttpTransport.ConnectRefusedException refused
                    && !refused.wantsCredentials()
                    && setup.config().longPoll().fallBack()
                    && !cancelled) {
                channel.close();
                setup.connectRefused().add(resolved);
                log.info("{}; linking through a long-poll session instead", failure.getMessage());
                dialLongPoll(resolved, proxy);
            } else if (failure != null) {
                channel.close();
                fail(failure.getMessage(), failure instanceof HubLinkException h && h.isRefusalForSetting());
            } else {
                result.complete(new Linked(resolved, proxy, channel, outcome, null));
            }
        }));
    }

    /**
     * Puts the proxy's CONNECT tunnel under the link; what the proxy answered goes to the link's
     * status, and a refusal fails the handshake with the proxy's name and status line rather than
     * with a generic closed connection.
     */
    private void tunnel(
            ChannelPipeline pipeline,
            HttpTransport.Way way,
            long timeoutMillis,
            CompletableFuture<NodeLinkHandshake.Outcome> handshake) {
        HttpTransports.shared().tunnel(pipeline, way, timeoutMillis).whenComplete((answer, failure) -> {
            if (failure == null) {
                setup.proxyAnswers().accept(answer);
                return;
            }
            Throwable cause = HubLinkException.unwrap(failure);
            setup.proxyAnswers().accept(cause.getMessage());
            handshake.completeExceptionally(
                    cause instanceof HubLinkException ? cause : new HubLinkException(cause.getMessage(), cause));
        });
    }

    /**
     * A link whose byte stream travels in HTTP requests. The link pipeline and its handshake are
     * those of a TCP link; the session channel takes the socket's place.
     */
    private void dialLongPoll(InetSocketAddress resolved, ProxyRoute proxy) {
        long timeoutMillis = setup.config().hubTimeout().toMillis();
        String identityText = setup.identityWithHub().apply(resolved).toText();
        HttpTransport.Way way = proxy == null ? new HttpTransport.Way(resolved, null, null) : proxy.to(resolved);
        HttpTransports.shared()
                .open(
                        setup.loop(),
                        LinkEventLoops.channelClass(),
                        way,
                        setup.nodeId(),
                        setup.config().longPoll(),
                        timeoutMillis)
                .whenComplete((client, failure) -> setup.loop().execute(() -> {
                    if (failure != null) {
                        Throwable cause = HubLinkException.unwrap(failure);
                        fail(cause.getMessage(), false);
                        return;
                    }
                    SessionChannel channel = client.channel();
                    CompletableFuture<NodeLinkHandshake.Outcome> handshake = new CompletableFuture<>();
                    installLink(channel.pipeline(), resolved, identityText, timeoutMillis, handshake);
                    channels.add(channel);
                    setup.loop().register(channel).addListener(f -> {
                        if (!f.isSuccess()) {
                            handshake.completeExceptionally(new HubLinkException(
                                    "cannot start the " + client.route() + ": " + f.cause(), f.cause()));
                        } else if (cancelled) {
                            channel.close();
                        } else {
                            client.start(setup.loop());
                        }
                    });
                    handshake.whenComplete((outcome, failed) -> onLoop(() -> {
                        if (failed != null) {
                            channel.fail(failed.getMessage());
                            fail(failed.getMessage(), failed instanceof HubLinkException h && h.isRefusalForSetting());
                        } else {
                            result.complete(new Linked(resolved, proxy, channel, outcome, client.route()));
                        }
                    }));
                }));
    }

    /** The link's codec and handshake, the same on a socket and on a long-poll session's channel. */
    private void installLink(
            ChannelPipeline pipeline,
            InetSocketAddress resolved,
            String identityText,
            long timeoutMillis,
            CompletableFuture<NodeLinkHandshake.Outcome> handshake) {
        LinkPipeline.installCodec(pipeline);
        pipeline.addLast(
                "handshake",
                new NodeLinkHandshake(
                        resolved,
                        setup.nodeId(),
                        identityText,
                        setup.authentication(),
                        setup.tls(),
                        timeoutMillis,
                        handshake));
    }

    private void onLoop(Runnable task) {
        if (setup.loop().inEventLoop()) {
            task.run();
        } else {
            setup.loop().execute(task);
        }
    }
}
