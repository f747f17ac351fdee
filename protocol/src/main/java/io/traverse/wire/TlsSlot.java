package io.traverse.wire;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Holds TLS's place in a link pipeline, right after the preamble decoder, until the preambles
 * are exchanged: replacing it (rather than adding next to the preamble decoder, which removes
 * itself) is what hands the bytes after the preamble to TLS.
 */
@ChannelHandler.Sharable
final class TlsSlot extends ChannelInboundHandlerAdapter {
    static final TlsSlot INSTANCE = new TlsSlot();

    private TlsSlot() {}
}
