package io.traverse.hub.link;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.traverse.identity.NodeId;
import io.traverse.security.LinkTls;
import io.traverse.wire.Auth;
import io.traverse.wire.Challenge;
import io.traverse.wire.EndpointEcho;
import io.traverse.wire.Hello;
import io.traverse.wire.HubHello;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkPipeline;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import io.traverse.wire.Welcome;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The accepting side of the link handshake: preamble, HELLO → CHALLENGE, AUTH → (admission by
 * the hub) → WELCOME or REJECT. The whole handshake must finish within the handshake timeout.
 * Then it hands the channel over to {@link Keepalive} and {@link LinkInbound}.
 */
final class AcceptorHandshake extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(AcceptorHandshake.class);

    private enum Stage {
        PREAMBLE,
        HELLO,
        AUTH,
        ADMISSION,
        DONE
    }

    private final LinkSettings settings;
    private final LinkEvents events;
    private final EventExecutor stateLoop;
    private Stage stage = Stage.PREAMBLE;
    private LinkRole role;
    private Hello hello;
    private byte[] serverNonce;
    private boolean ownIdChallenge;
    private ScheduledFuture<?> timeout;
    private final Runnable onFinished;

    /** @param onFinished run once when the handshake is over, whichever way */
    AcceptorHandshake(LinkSettings settings, LinkEvents events, EventExecutor stateLoop, Runnable onFinished) {
        this.settings = settings;
        this.events = events;
        this.stateLoop = stateLoop;
        this.onFinished = onFinished;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        // Removed after success, or torn down with the closed channel.
        timeout.cancel(false);
        if (ownIdChallenge) {
            settings.ownChallenges().forget(serverNonce);
        }
        onFinished.run();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timeout = ctx.executor()
                .schedule(
                        () -> {
                            if (stage != Stage.DONE && ctx.channel().isActive()) {
                                log.info(
                                        "Closing link from {}: no complete handshake within {} ms (stage {})",
                                        ctx.channel().remoteAddress(),
                                        settings.handshakeTimeout().toMillis(),
                                        stage);
                                // Past TLS, not through it: TLS would first wait up to 3 s to flush a
                                // close_notify that an unfinished TLS handshake never sends.
                                io.netty.handler.ssl.SslHandler tls =
                                        ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class);
                                if (tls != null && !tls.handshakeFuture().isDone()) {
                                    ctx.pipeline().remove(tls);
                                }
                                ctx.close();
                            }
                        },
                        settings.handshakeTimeout().toMillis(),
                        TimeUnit.MILLISECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        timeout.cancel(false);
        super.channelInactive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (role == LinkRole.ECHO) {
                return; // answered and closing: bytes already read past the preamble are ignored
            }
            switch (stage) {
                case PREAMBLE -> onPreamble(ctx, msg);
                case HELLO -> onHello(ctx, msg);
                case AUTH -> onAuth(ctx, msg);
                default -> refuse(ctx, RejectCode.PROTOCOL, "unexpected " + describe(msg) + " before WELCOME");
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onPreamble(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof LinkPreamble preamble)) {
            ctx.close();
            return;
        }
        ctx.write(LinkPreamble.current(LinkRole.HUB).encode(ctx.alloc()));
        if (!preamble.isSupported()) {
            refuse(
                    ctx,
                    RejectCode.VERSION,
                    "unsupported link protocol version " + preamble.version() + " (this hub speaks "
                            + LinkPreamble.VERSION + ")");
            return;
        }
        if (preamble.role() == LinkRole.ECHO) {
            // Endpoint discovery for splicing: where this connection comes from, then nothing more.
            role = LinkRole.ECHO;
            stage = Stage.DONE;
            // Whatever else the caller sent is discarded, not left unread: closing on unread bytes
            // makes the kernel send a reset, which can destroy the answer before the caller reads it.
            LinkClosing.writeAndClose(
                    ctx.channel(),
                    ctx.alloc().buffer(EndpointEcho.MAX_LENGTH).writeBytes(EndpointEcho.encode((InetSocketAddress)
                            ctx.channel().remoteAddress())));
            return;
        }
        if (preamble.role() != LinkRole.NODE_DATA && !settings.linkRate().tryTake(System.nanoTime())) {
            // Before any work for it (no nonce, no proof, no admission): a refused link costs almost nothing.
            // Logged by the rate (at most once in a while), not per link.
            stage = Stage.DONE;
            LinkClosing.rejectAndClose(
                    ctx.channel(),
                    Reject.of(RejectCode.LIMIT, settings.linkRate().reason(settings.hubName())));
            return;
        }
        ctx.flush();
        role = preamble.role();
        stage = Stage.HELLO;
        // After our preamble has left in clear; the dialler's first TLS record is already on its way.
        // A data link may run in clear (the node's choice, traverse.hub.datalink.tls): its first byte says.
        if (role == LinkRole.NODE_DATA) {
            LinkPipeline.startServerTlsIfOffered(
                    ctx.pipeline(), () -> settings.tls().serverHandler(ctx.alloc()));
        } else {
            LinkPipeline.startServerTls(ctx.pipeline(), settings.tls().serverHandler(ctx.alloc()));
        }
    }

    private void onHello(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Hello h) || h.role() != role.helloRole()) {
            refuse(ctx, RejectCode.PROTOCOL, "expected a " + role.helloRole() + " HELLO, got " + describe(msg));
            return;
        }
        // Every link in TLS: the id stated must be the id of the key proved there. A data link in clear is bound
        // to its node's link by its proof (at admission), over that link's nonces, which only travelled in TLS.
        boolean clearDataLink =
                role == LinkRole.NODE_DATA && ctx.pipeline().get(io.netty.handler.ssl.SslHandler.class) == null;
        NodeId keyId = LinkTls.peerId(ctx.pipeline());
        if (!clearDataLink && !h.senderId().equals(keyId)) {
            log.warn(
                    "Refused {} from {}: it states id {} but proved the key of {}",
                    role.toString().toLowerCase(java.util.Locale.ROOT),
                    ctx.channel().remoteAddress(),
                    h.senderId(),
                    keyId);
            refuse(ctx, RejectCode.AUTH, "id " + h.senderId() + " is not the id of the key it proved (" + keyId + ")");
            return;
        }
        hello = h;
        serverNonce = LinkAuthentication.newNonce();
        if (h instanceof HubHello && h.senderId().equals(settings.hubId())) {
            // This hub dialling itself, or another hub with its id: recorded before the CHALLENGE leaves, so the
            // dialling side can tell.
            settings.ownChallenges().issued(serverNonce);
            ownIdChallenge = true;
        }
        ctx.writeAndFlush(new Challenge(settings.hubId(), serverNonce));
        stage = Stage.AUTH;
    }

    private void onAuth(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Auth auth)) {
            refuse(ctx, RejectCode.PROTOCOL, "expected AUTH, got " + describe(msg));
            return;
        }
        // A data link's proof also binds it to the node's link: checked at admission, where that link is known.
        if (role != LinkRole.NODE_DATA
                && !settings.authentication()
                        .isValidDialerProof(
                                auth.mac(), hello.clientNonce(), serverNonce, hello.senderId(), settings.hubId())) {
            log.warn(
                    "Refused {} {} from {}: wrong network token",
                    role.toString().toLowerCase(java.util.Locale.ROOT),
                    hello.senderId(),
                    ctx.channel().remoteAddress());
            refuse(ctx, RejectCode.AUTH, "wrong network token");
            return;
        }
        stage = Stage.ADMISSION;
        long keepaliveMillis = settings.keepaliveInterval().toMillis();
        Keepalive keepalive = new Keepalive(keepaliveMillis);
        LinkKind kind = hello instanceof HubHello
                ? LinkKind.HUB
                : role == LinkRole.NODE_DATA ? LinkKind.NODE_DATA : LinkKind.NODE;
        Link link = new Link(kind, hello.senderId(), ctx.channel(), false, hello, keepalive);
        byte[] clientNonce = hello.clientNonce();
        byte[] ourNonce = serverNonce;
        link.handshake(clientNonce, ourNonce);
        if (kind == LinkKind.NODE_DATA) {
            byte[] mac = auth.mac();
            link.binding(nodeLink -> settings.authentication()
                    .isValidDataLinkProof(
                            mac,
                            clientNonce,
                            ourNonce,
                            hello.senderId(),
                            settings.hubId(),
                            nodeLink.clientNonce(),
                            nodeLink.serverNonce()));
        }
        byte[] proof = settings.authentication()
                .acceptorProof(serverNonce, hello.clientNonce(), settings.hubId(), hello.senderId());
        stateLoop.execute(() -> {
            Reject refusal = events.admit(link);
            if (refusal != null) {
                ctx.executor().execute(() -> refuse(ctx, refusal.code(), refusal.reason()));
                return;
            }
            // Pipeline first, then WELCOME, then whatever the hub sends: Netty runs these in this order on the
            // channel's loop.
            ctx.executor().execute(() -> {
                stage = Stage.DONE;
                timeout.cancel(false);
                LinkPipelineSwitch.toEstablished(
                        ctx, link, keepalive, events, stateLoop, settings.maxQueuedMessagesPerLink());
            });
            InetSocketAddress observed = (InetSocketAddress) ctx.channel().remoteAddress();
            ChannelFuture welcomed = ctx.channel().writeAndFlush(new Welcome(proof, observed, (int) keepaliveMillis));
            if (kind == LinkKind.HUB) {
                // Not from the pipeline switch: that runs on the channel's loop and may run before this
                // thread queues the WELCOME, and the dialler reads nothing before its WELCOME.
                welcomed.addListener(f -> {
                    if (f.isSuccess()) {
                        keepalive.pingAtOnce();
                    }
                });
            }
            LinkPipelineSwitch.reportClose(link, events, stateLoop);
            events.established(link);
            java.util.function.Consumer<io.traverse.identity.NodeId> admitted =
                    ctx.channel().attr(LinkListener.ADMITTED).get();
            if (admitted != null) {
                admitted.accept(hello.senderId());
            }
        });
    }

    private void refuse(ChannelHandlerContext ctx, RejectCode code, String reason) {
        stage = Stage.DONE;
        if (code != RejectCode.AUTH) {
            log.info("Refused link from {}: {} {}", ctx.channel().remoteAddress(), code, reason);
        }
        LinkClosing.rejectAndClose(ctx.channel(), Reject.of(code, reason));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (stage == Stage.DONE) {
            return;
        }
        boolean peerHasOurPreamble = stage != Stage.PREAMBLE;
        stage = Stage.DONE;
        LinkFailures.closeOnError(ctx, cause, "in handshake", peerHasOurPreamble);
    }

    private static String describe(Object msg) {
        return msg instanceof io.traverse.wire.LinkMessage m
                ? m.type().toString()
                : msg.getClass().getSimpleName();
    }
}
