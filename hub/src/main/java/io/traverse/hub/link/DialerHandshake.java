package io.traverse.hub.link;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.traverse.identity.NodeId;
import io.traverse.security.LinkTls;
import io.traverse.wire.Auth;
import io.traverse.wire.Challenge;
import io.traverse.wire.HubHello;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkPipeline;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import io.traverse.wire.Welcome;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The dialling side of a hub-to-hub link: preamble and HELLO, CHALLENGE → AUTH, then WELCOME,
 * whose proof shows the far end knows the token too (a fake hub is refused here). Completes its
 * future with the admitted link, or with the reason it failed.
 */
final class DialerHandshake extends ChannelInboundHandlerAdapter {
    private enum Stage {
        PREAMBLE,
        CHALLENGE,
        WELCOME,
        DONE
    }

    private final LinkSettings settings;
    private final LinkEvents events;
    private final EventExecutor stateLoop;
    private final CompletableFuture<Link> result;
    private final byte[] clientNonce = LinkAuthentication.newNonce();
    private Stage stage = Stage.PREAMBLE;
    private Challenge challenge;
    private ScheduledFuture<?> timeout;

    DialerHandshake(LinkSettings settings, LinkEvents events, EventExecutor stateLoop, CompletableFuture<Link> result) {
        this.settings = settings;
        this.events = events;
        this.stateLoop = stateLoop;
        this.result = result;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        timeout = ctx.executor()
                .schedule(
                        () -> fail(
                                ctx,
                                new IOException("no complete handshake within "
                                        + settings.handshakeTimeout().toMillis() + " ms")),
                        settings.handshakeTimeout().toMillis(),
                        TimeUnit.MILLISECONDS);
        ctx.write(LinkPreamble.current(LinkRole.HUB).encode(ctx.alloc()));
        LinkPipeline.startClientTls(
                ctx.pipeline(),
                settings.tls().clientHandler(ctx.alloc(), ctx.channel().remoteAddress()));
        ctx.writeAndFlush(new HubHello(
                settings.hubId(),
                clientNonce,
                settings.hubName(),
                settings.advertisedAddresses(),
                settings.stateNumber().getAsLong()));
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        fail(ctx, new IOException("closed by the far end during the handshake"));
        super.channelInactive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (msg instanceof Reject reject) {
                fail(
                        ctx,
                        new LinkRefusedException(
                                reject.code(), reject.reason(), challenge == null ? null : challenge.acceptorId()));
                return;
            }
            switch (stage) {
                case PREAMBLE -> {
                    if (!(msg instanceof LinkPreamble preamble)
                            || !preamble.isSupported()
                            || preamble.role() != LinkRole.HUB) {
                        // An unsupported version is followed by a REJECT VERSION that says more; wait for it.
                        if (msg instanceof LinkPreamble p && !p.isSupported()) {
                            stage = Stage.CHALLENGE;
                            return;
                        }
                        fail(ctx, new IOException("the far end is not a hub: " + msg));
                        return;
                    }
                    stage = Stage.CHALLENGE;
                }
                case CHALLENGE -> {
                    if (!(msg instanceof Challenge c)) {
                        fail(ctx, new IOException("expected CHALLENGE, got " + msg));
                        return;
                    }
                    if (c.acceptorId().equals(settings.hubId())
                            && settings.ownChallenges().isOurs(c.serverNonce())) {
                        fail(ctx, LinkRefusedException.leadsBackHere(c.acceptorId()));
                        return;
                    }
                    NodeId keyId = LinkTls.peerId(ctx.pipeline());
                    if (!c.acceptorId().equals(keyId)) {
                        fail(
                                ctx,
                                new LinkRefusedException(
                                        RejectCode.AUTH,
                                        keyId == null
                                                ? "hub " + c.acceptorId() + " did not run TLS with its key"
                                                : "the hub states id " + c.acceptorId() + " but proved the key of "
                                                        + keyId + ": refusing it"));
                        return;
                    }
                    // The acceptor may have this hub's id without being this hub: carry on, so that it can
                    // refuse the link at admission with both hubs named (the REJECT comes back here).
                    challenge = c;
                    ctx.writeAndFlush(new Auth(settings.authentication()
                            .dialerProof(clientNonce, c.serverNonce(), settings.hubId(), c.acceptorId())));
                    stage = Stage.WELCOME;
                }
                case WELCOME -> onWelcome(ctx, msg);
                default -> fail(ctx, new IOException("unexpected " + msg + " during the handshake"));
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onWelcome(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Welcome welcome)) {
            fail(ctx, new IOException("expected WELCOME, got " + msg));
            return;
        }
        if (!settings.authentication()
                .isValidAcceptorProof(
                        welcome.mac(),
                        challenge.serverNonce(),
                        clientNonce,
                        challenge.acceptorId(),
                        settings.hubId())) {
            fail(
                    ctx,
                    new LinkRefusedException(
                            RejectCode.AUTH,
                            "hub " + challenge.acceptorId() + " could not prove it knows the network token"));
            return;
        }
        stage = Stage.DONE;
        timeout.cancel(false);
        Keepalive keepalive = new Keepalive(welcome.keepaliveMillis());
        Link link = new Link(LinkKind.HUB, challenge.acceptorId(), ctx.channel(), true, null, keepalive);
        // Admission is queued on the state loop before the pipeline switch: frames that came in the
        // same read as the WELCOME (the acceptor's gossip digest) are handed on by the switch at once,
        // and the state loop must see the link admitted before it sees them, or it drops them.
        stateLoop.execute(() -> {
            Reject refusal = events.admit(link);
            if (refusal != null) {
                link.close(refusal.code(), refusal.reason());
                result.completeExceptionally(new LinkRefusedException(refusal.code(), refusal.reason(), link.peerId()));
                return;
            }
            LinkPipelineSwitch.reportClose(link, events, stateLoop);
            result.complete(link);
            events.established(link);
        });
        // Installed now, on this loop: the acceptor may send right behind its WELCOME.
        LinkPipelineSwitch.toEstablished(ctx, link, keepalive, events, stateLoop, settings.maxQueuedMessagesPerLink());
        keepalive.pingAtOnce(); // the WELCOME is in: the handshake is over for both ends
    }

    private void fail(ChannelHandlerContext ctx, IOException cause) {
        if (stage == Stage.DONE && result.isDone()) {
            return;
        }
        stage = Stage.DONE;
        if (timeout != null) {
            timeout.cancel(false);
        }
        result.completeExceptionally(cause);
        ctx.close();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, new IOException(LinkFailures.describe(cause), cause));
    }
}
