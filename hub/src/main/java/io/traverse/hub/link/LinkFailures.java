package io.traverse.hub.link;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.traverse.protocol.ProtocolException;
import io.traverse.wire.Reject;
import io.traverse.wire.RejectCode;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One way to end a link on an error: say why (to the peer if it speaks our protocol, and in the log), close only it. */
final class LinkFailures {
    private static final Logger log = LoggerFactory.getLogger(LinkFailures.class);

    private LinkFailures() {}

    /**
     * @param answerPeer whether the peer has our preamble and can read a REJECT frame
     */
    static void closeOnError(ChannelHandlerContext ctx, Throwable cause, String who, boolean answerPeer) {
        if (!ctx.channel().isActive()) {
            return;
        }
        String reason = describe(cause);
        if (cause instanceof DecoderException || cause instanceof ProtocolException) {
            log.info("Closing link {} ({}): {}", who, ctx.channel().remoteAddress(), reason);
            if (answerPeer) {
                LinkClosing.rejectAndClose(ctx.channel(), Reject.of(RejectCode.PROTOCOL, reason));
            } else {
                ctx.close();
            }
        } else if (cause instanceof IOException) {
            log.debug("Link {} ({}) failed: {}", who, ctx.channel().remoteAddress(), reason);
            ctx.close();
        } else {
            log.warn(
                    "Closing link {} ({}) after an unexpected error",
                    who,
                    ctx.channel().remoteAddress(),
                    cause);
            ctx.close();
        }
    }

    /** The most telling message of a decoding failure. */
    static String describe(Throwable cause) {
        if (cause instanceof TooLongFrameException) {
            return "frame too long: " + cause.getMessage();
        }
        Throwable root = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        String message = root.getMessage();
        return message == null ? root.getClass().getSimpleName() : message;
    }
}
