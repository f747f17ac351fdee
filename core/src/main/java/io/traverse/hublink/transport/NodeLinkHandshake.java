package io.traverse.hublink.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderException;
import io.netty.util.concurrent.ScheduledFuture;
import io.traverse.identity.NodeId;
import io.traverse.security.LinkTls;
import io.traverse.wire.Auth;
import io.traverse.wire.Challenge;
import io.traverse.wire.LinkAuthentication;
import io.traverse.wire.LinkPipeline;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.LinkRole;
import io.traverse.wire.NodeHello;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import io.traverse.wire.Welcome;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The node's side of the link handshake (docs/protocol.md): preamble, TLS 1.3 under the node's
 * key, HELLO with the node's identity, the hub's CHALLENGE (whose id must be the id of the key
 * the hub proved in TLS), AUTH with the proof of the token, then the hub's WELCOME, whose proof
 * is checked too — a hub that does not know the token is refused like a node that does not. Completes
 * {@code result} with the hub's id and WELCOME, or with a {@link HubLinkException} saying why
 * not, and closes the channel on failure. Everything must finish within the handshake timeout.
 */
public final class NodeLinkHandshake extends ChannelInboundHandlerAdapter {
    /** What a finished handshake hands over. */
    public record Outcome(NodeId hubId, Welcome welcome, byte[] clientNonce, byte[] serverNonce) {}

    private final InetSocketAddress hub;
    private final NodeId nodeId;
    private final String identityText;
    private final LinkAuthentication authentication;
    private final Supplier<LinkTls> tls;
    private final long timeoutMillis;
    private final CompletableFuture<Outcome> result;
    private final byte[] clientNonce = LinkAuthentication.newNonce();
    private ScheduledFuture<?> timeout;
    private LinkPreamble preamble;
    private Challenge challenge;

    NodeLinkHandshake(
            InetSocketAddress hub,
            NodeId nodeId,
            String identityText,
            LinkAuthentication authentication,
            Supplier<LinkTls> tls,
            long timeoutMillis,
            CompletableFuture<Outcome> result) {
        this.hub = hub;
        this.nodeId = nodeId;
        this.identityText = identityText;
        this.authentication = authentication;
        this.tls = tls;
        this.timeoutMillis = timeoutMillis;
        this.result = result;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        timeout = ctx.executor()
                .schedule(
                        () -> fail(
                                ctx,
                                "hub at " + hub + " did not complete the link handshake within " + timeoutMillis
                                        + " ms",
                                false),
                        timeoutMillis,
                        TimeUnit.MILLISECONDS);
        ctx.write(LinkPreamble.current(LinkRole.NODE).encode(ctx.alloc()));
        // The first TLS record goes right behind the preamble: no round trip is spent waiting for the hub's.
        LinkPipeline.startClientTls(ctx.pipeline(), tls.get().clientHandler(ctx.alloc(), hub));
        ctx.writeAndFlush(new NodeHello(nodeId, clientNonce, identityText));
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (result.isDone()) {
            return;
        }
        if (msg instanceof LinkPreamble p) {
            preamble = p;
            if (p.role() != LinkRole.HUB) {
                fail(ctx, "the peer at " + hub + " is not a hub (its preamble says " + p.role() + ")", false);
            }
            // An unsupported version is followed by REJECT VERSION, which says it better.
        } else if (preamble == null) {
            fail(ctx, "hub at " + hub + " sent " + msg + " before its preamble", false);
        } else if (msg instanceof Reject r) {
            // A duplicate id is not one: after a lost link the hub may hold the old link for a moment.
            fail(ctx, refusal(r), r.code() == RejectCode.AUTH || r.code() == RejectCode.VERSION);
        } else if (!preamble.isSupported()) {
            fail(
                    ctx,
                    "hub at " + hub + " speaks link protocol version " + preamble.version() + "; this node speaks "
                            + LinkPreamble.VERSION,
                    true);
        } else if (msg instanceof Challenge c && challenge == null) {
            NodeId keyId = LinkTls.peerId(ctx.pipeline());
            if (!c.acceptorId().equals(keyId)) {
                fail(
                        ctx,
                        keyId == null
                                ? "hub at " + hub + " did not run TLS with its key: refusing it"
                                : "hub at " + hub + " states id " + c.acceptorId() + " but proved the key of " + keyId
                                        + ": refusing it",
                        true);
                return;
            }
            challenge = c;
            ctx.writeAndFlush(
                    new Auth(authentication.dialerProof(clientNonce, c.serverNonce(), nodeId, c.acceptorId())));
        } else if (msg instanceof Welcome w && challenge != null) {
            if (!authentication.isValidAcceptorProof(
                    w.mac(), challenge.serverNonce(), clientNonce, challenge.acceptorId(), nodeId)) {
                fail(
                        ctx,
                        "hub at " + hub + " could not prove it knows the network token: refusing it"
                                + " (is traverse.token the same on this node and the hub?)",
                        true);
                return;
            }
            timeout.cancel(false);
            // Order matters: raising the frame limit passes on frames already buffered behind
            // WELCOME, so the session handler (installed by whoever completes the result, on
            // this loop) must be in place first, and this handler gone.
            ChannelPipeline pipeline = ctx.pipeline();
            pipeline.remove(this);
            result.complete(new Outcome(challenge.acceptorId(), w, clientNonce, challenge.serverNonce()));
            if (ctx.channel().isOpen()) {
                LinkPipeline.authenticated(pipeline);
            }
        } else {
            fail(ctx, "hub at " + hub + " sent " + msg + " out of turn in the link handshake", false);
        }
    }

    private String refusal(Reject r) {
        String why = switch (r.code()) {
            case AUTH -> "wrong network token (traverse.token differs between this node and the hub)";
            case DUPLICATE_ID -> "node id " + nodeId + " is already linked: another live node uses this id";
            case VERSION -> "link protocol version not supported";
            case LIMIT -> "the hub is at its limit";
            case SHUTTING_DOWN -> "the hub is shutting down";
            default -> r.code().name();
        };
        // the hub's own words only where they add to ours (its AUTH reason is "wrong network token" too)
        boolean adds = !r.reason().isEmpty()
                && !why.toLowerCase(java.util.Locale.ROOT).contains(r.reason().toLowerCase(java.util.Locale.ROOT));
        return "hub at " + hub + " refused the link: " + why + (adds ? " (" + r.reason() + ")" : "");
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        fail(ctx, "link handshake with hub at " + hub + " failed: " + c.getMessage(), false);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail(ctx, "hub at " + hub + " closed the connection during the link handshake", false);
        ctx.fireChannelInactive();
    }

    private void fail(ChannelHandlerContext ctx, String message, boolean refusal) {
        if (timeout != null) {
            timeout.cancel(false);
        }
        if (result.completeExceptionally(new HubLinkException(message, refusal))) {
            ctx.close();
        }
    }
}
