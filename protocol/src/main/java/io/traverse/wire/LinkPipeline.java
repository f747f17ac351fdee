package io.traverse.wire;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SslHandler;

/**
 * Installs the link codec in a channel pipeline, for both ends: inbound preamble → frames →
 * messages, outbound messages → frames (RELAY frames as header and payload buffers, not copied).
 * The application handler goes after these.
 */
public final class LinkPipeline {
    public static final String PREAMBLE = "link-preamble";
    /** Where TLS goes once the preambles are exchanged: a pass-through until then. */
    public static final String TLS = "link-tls";
    /** The dialler's look at the first byte after the acceptor's preamble (TLS, or a refusal in clear). */
    public static final String TLS_OR_CLEAR = "link-tls-or-clear";

    public static final String FRAMES = "link-frames";
    public static final String MESSAGES = "link-messages";
    public static final String ENCODER = "link-encoder";
    public static final String RELAY_ENCODER = "link-relay-encoder";

    private LinkPipeline() {}

    /** Adds the codec at the end of the pipeline, with the pre-authentication frame limit. */
    public static void installCodec(ChannelPipeline pipeline) {
        pipeline.addLast(PREAMBLE, new LinkPreambleDecoder());
        pipeline.addLast(TLS, TlsSlot.INSTANCE);
        pipeline.addLast(FRAMES, LinkFrameDecoder.beforeAuthentication());
        pipeline.addLast(MESSAGES, LinkMessageDecoder.INSTANCE);
        pipeline.addLast(ENCODER, LinkMessageEncoder.INSTANCE);
        pipeline.addLast(RELAY_ENCODER, RelayEncoder.INSTANCE);
    }

    /**
     * The accepting end starts TLS: call right after writing its own preamble (which must leave in
     * clear) and while reading the dialler's; the bytes that came after that preamble go to TLS.
     */
    public static void startServerTls(ChannelPipeline pipeline, SslHandler tls) {
        // replace() keeps the removed preamble decoder's hand-over pointing at the new handler.
        pipeline.replace(TLS, TLS, tls);
    }

    /**
     * The accepting end of a link that may run TLS or not (a data link): TLS when the first byte
     * after the preamble starts a TLS record, else the bytes go on in clear.
     */
    public static void startServerTlsIfOffered(ChannelPipeline pipeline, java.util.function.Supplier<SslHandler> tls) {
        pipeline.replace(TLS, TLS, new TlsIfOffered(tls));
    }

    /**
     * The dialling end starts TLS: call right after writing its own preamble. Its first TLS
     * record leaves at once; what arrives after the acceptor's preamble goes to TLS, unless it is a
     * frame in clear: an acceptor that refuses before TLS (another version, a limit) says so in
     * clear, and then TLS is taken out so the refusal is read.
     */
    public static void startClientTls(ChannelPipeline pipeline, SslHandler tls) {
        pipeline.replace(TLS, TLS, tls);
        pipeline.addBefore(TLS, TLS_OR_CLEAR, new TlsOrClear());
    }

    /**
     * Raises the frame limit once the link is authenticated. Call on the channel's event loop;
     * bytes already buffered by the old decoder are handed to the new one.
     */
    public static void authenticated(ChannelPipeline pipeline) {
        if (pipeline.get(FRAMES) instanceof LinkFrameDecoder current
                && current.maxFrameBody() < LinkLimits.MAX_FRAME_AFTER_AUTH) {
            pipeline.replace(FRAMES, FRAMES, LinkFrameDecoder.afterAuthentication());
        }
    }
}
