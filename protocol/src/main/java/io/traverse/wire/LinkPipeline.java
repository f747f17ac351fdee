package io.traverse.wire;

import io.netty.channel.ChannelPipeline;

/**
 * Installs the link codec in a channel pipeline, for both ends: inbound preamble → frames →
 * messages, outbound messages → frames (RELAY frames as header and payload buffers, not copied).
 * The application handler goes after these.
 */
public final class LinkPipeline {
    public static final String PREAMBLE = "link-preamble";
    public static final String FRAMES = "link-frames";
    public static final String MESSAGES = "link-messages";
    public static final String ENCODER = "link-encoder";
    public static final String RELAY_ENCODER = "link-relay-encoder";

    private LinkPipeline() {}

    /** Adds the codec at the end of the pipeline, with the pre-authentication frame limit. */
    public static void installCodec(ChannelPipeline pipeline) {
        pipeline.addLast(PREAMBLE, new LinkPreambleDecoder());
        pipeline.addLast(FRAMES, LinkFrameDecoder.beforeAuthentication());
        pipeline.addLast(MESSAGES, LinkMessageDecoder.INSTANCE);
        pipeline.addLast(ENCODER, LinkMessageEncoder.INSTANCE);
        pipeline.addLast(RELAY_ENCODER, RelayEncoder.INSTANCE);
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
