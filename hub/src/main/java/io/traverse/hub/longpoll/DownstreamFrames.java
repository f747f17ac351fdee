package io.traverse.hub.longpoll;

import io.netty.buffer.ByteBuf;
import io.traverse.wire.LinkFrameDecoder;
import io.traverse.wire.LinkMessageType;
import io.traverse.wire.LinkPreamble;
import io.traverse.wire.RelayKind;

/**
 * Reads the frame headers of a session's downstream byte stream as the link writes it, to tell
 * the bytes the batch timespan may hold back from those that must leave at once. Only RELAY DATA
 * frames (a relayed connection's stream bytes: RobustTrav's "events") wait; the preamble and
 * every other frame — the handshake, keepalive PING and PONG, answers to requests, side messages,
 * a relayed connection's OPEN, ACCEPT, CREDIT, FIN or RESET — answer a held poll at once, and
 * the data waiting before them goes along. A timespan held against those would break their own
 * limits: the 10 s handshake, 3 keepalive intervals (6 s at the hubs' default), connect timeouts.
 *
 * <p>The link writes the stream itself, so its framing is trusted; should it ever not parse,
 * every later byte counts as urgent (the timespan is off for the rest of the session, nothing is
 * delayed or lost). Not thread-safe: the session's loop.
 */
final class DownstreamFrames {
    /** A RELAY frame's bytes from its length field to its kind, with the longest ids (40 characters each). */
    private static final int RELAY_HEAD_MAX = LinkFrameDecoder.LENGTH_FIELD + 1 + 8 + 1 + 40 + 1 + 40 + 1 + 1 + 1;

    private static final int TYPE_AT = LinkFrameDecoder.LENGTH_FIELD;
    private static final int OPENER_LENGTH_AT = TYPE_AT + 1 + 8;

    private final byte[] head = new byte[RELAY_HEAD_MAX];
    private int headBytes;
    /** Stream offset of the next byte to read. */
    private long offset;
    /** Bytes before this offset are the preamble's or belong to a frame whose head was read. */
    private long skipUntil = LinkPreamble.LENGTH;

    private long frameStart = LinkPreamble.LENGTH;
    /** Every urgent byte lies before this offset; the preamble is urgent. */
    private long urgentEnd = LinkPreamble.LENGTH;

    private boolean unparsable;

    /** The next bytes of the stream (readable bytes of {@code bytes}, not consumed). */
    void scan(ByteBuf bytes) {
        int i = bytes.readerIndex();
        int end = bytes.writerIndex();
        while (i < end) {
            if (unparsable) {
                offset += end - i;
                return;
            }
            if (offset < skipUntil) {
                int n = (int) Math.min(skipUntil - offset, end - i);
                i += n;
                offset += n;
                continue;
            }
            if (headBytes == 0) {
                frameStart = offset;
            }
            head[headBytes++] = bytes.getByte(i++);
            offset++;
            classify();
        }
    }

    /** With the head bytes read so far: decides the frame once enough of it is known. */
    private void classify() {
        if (headBytes < TYPE_AT + 1) {
            return;
        }
        long length = ((head[0] & 0xffL) << 24) | ((head[1] & 0xff) << 16) | ((head[2] & 0xff) << 8) | (head[3] & 0xff);
        long frameEnd = frameStart + LinkFrameDecoder.LENGTH_FIELD + length;
        if (length < 1) {
            giveUp();
            return;
        }
        if ((head[TYPE_AT] & 0xff) != LinkMessageType.RELAY.code()) {
            decided(frameEnd, true);
            return;
        }
        if (headBytes < OPENER_LENGTH_AT + 1) {
            return;
        }
        int acceptorLengthAt = OPENER_LENGTH_AT + 1 + (head[OPENER_LENGTH_AT] & 0xff);
        if (acceptorLengthAt >= RELAY_HEAD_MAX) {
            giveUp();
            return;
        }
        if (headBytes < acceptorLengthAt + 1) {
            return;
        }
        int kindAt = acceptorLengthAt + 1 + (head[acceptorLengthAt] & 0xff) + 2;
        if (kindAt >= RELAY_HEAD_MAX || kindAt >= LinkFrameDecoder.LENGTH_FIELD + length) {
            giveUp();
            return;
        }
        if (headBytes < kindAt + 1) {
            return;
        }
        int kind = head[kindAt] & 0xff;
        decided(frameEnd, kind != RelayKind.DATA.code() && kind != RelayKind.SEALED.code());
    }

    private void decided(long frameEnd, boolean urgent) {
        if (urgent) {
            urgentEnd = Math.max(urgentEnd, frameEnd);
        }
        skipUntil = frameEnd;
        headBytes = 0;
    }

    /** Stops telling frames apart: every byte from here on is urgent. */
    void giveUp() {
        unparsable = true;
        urgentEnd = Long.MAX_VALUE;
    }

    /** Whether the stream holds urgent bytes at or after {@code from} (a held poll's offset). */
    boolean urgentFrom(long from) {
        return unparsable || (urgentEnd > from && offset > from);
    }

    /** Bytes read so far. */
    long scanned() {
        return offset;
    }
}
