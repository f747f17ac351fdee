package io.traverse.wire;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/**
 * Cuts the byte stream into frames: {@code u32 length | type | payload}, where length counts type
 * and payload. A frame longer than the limit fails at once ({@code failFast}) with a
 * {@link io.netty.handler.codec.TooLongFrameException}; its bytes are discarded, never buffered.
 * The limit is small until the link is authenticated ({@link LinkPipeline#authenticated}).
 */
public final class LinkFrameDecoder extends LengthFieldBasedFrameDecoder {
    /** Size of the length prefix. */
    public static final int LENGTH_FIELD = 4;

    private final int maxFrameBody;

    private LinkFrameDecoder(int maxFrameBody) {
        super(LENGTH_FIELD + maxFrameBody, 0, LENGTH_FIELD, 0, LENGTH_FIELD, true);
        this.maxFrameBody = maxFrameBody;
        // Frames are passed on as slices of what was read (RELAY payloads travel on untouched), so
        // the read buffers are still referenced when the next read comes: merging would copy every
        // byte once more; a composite strings the reads together instead.
        setCumulator(COMPOSITE_CUMULATOR);
    }

    /** The decoder for a link that has not authenticated yet ({@link LinkLimits#MAX_FRAME_BEFORE_AUTH}). */
    public static LinkFrameDecoder beforeAuthentication() {
        return new LinkFrameDecoder(LinkLimits.MAX_FRAME_BEFORE_AUTH);
    }

    /** The decoder for an authenticated link ({@link LinkLimits#MAX_FRAME_AFTER_AUTH}). */
    public static LinkFrameDecoder afterAuthentication() {
        return new LinkFrameDecoder(LinkLimits.MAX_FRAME_AFTER_AUTH);
    }

    /** The largest type-plus-payload this decoder accepts. */
    public int maxFrameBody() {
        return maxFrameBody;
    }
}
