package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.traverse.identity.NodeId;
import io.traverse.protocol.ProtocolException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads the primitives of a frame and checks every declared length against both its maximum and
 * the bytes actually left before allocating: a lying length field costs nothing.
 */
final class WireReader {
    private final ByteBuf in;

    WireReader(ByteBuf in) {
        this.in = in;
    }

    private void need(int bytes, String field) throws ProtocolException {
        if (in.readableBytes() < bytes) {
            throw new ProtocolException(
                    "truncated " + field + ": needs " + bytes + " bytes, " + in.readableBytes() + " left");
        }
    }

    int u8(String field) throws ProtocolException {
        need(1, field);
        return in.readUnsignedByte();
    }

    int u16(String field) throws ProtocolException {
        need(2, field);
        return in.readUnsignedShort();
    }

    /** A u32 as Java int: the bits, for opaque values such as request ids. */
    int u32Bits(String field) throws ProtocolException {
        need(4, field);
        return in.readInt();
    }

    long u32(String field) throws ProtocolException {
        need(4, field);
        return in.readUnsignedInt();
    }

    long u64(String field) throws ProtocolException {
        need(8, field);
        return in.readLong();
    }

    byte[] fixedBytes(String field, int length) throws ProtocolException {
        need(length, field);
        byte[] bytes = new byte[length];
        in.readBytes(bytes);
        return bytes;
    }

    /** {@code bytes}: u16 length, then the bytes. */
    byte[] bytes(String field, int max) throws ProtocolException {
        int length = u16(field + " length");
        if (length > max) {
            throw new ProtocolException(field + " of " + length + " bytes exceeds the maximum of " + max);
        }
        return fixedBytes(field, length);
    }

    /** {@code long bytes}: u32 length, then the bytes as a retained slice of the frame (no copy; the caller releases it). */
    ByteBuf retainedLongBytes(String field, int max) throws ProtocolException {
        long length = u32(field + " length");
        if (length > max) {
            throw new ProtocolException(field + " of " + length + " bytes exceeds the maximum of " + max);
        }
        need((int) length, field);
        return in.readRetainedSlice((int) length);
    }

    /** {@code text}: u16 length, then strict UTF-8 (malformed sequences are an error). */
    String text(String field, int max) throws ProtocolException {
        int length = u16(field + " length");
        if (length > max) {
            throw new ProtocolException(field + " of " + length + " bytes exceeds the maximum of " + max);
        }
        need(length, field);
        ByteBuffer view = in.nioBuffer(in.readerIndex(), length);
        in.skipBytes(length);
        try {
            CharBuffer chars = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(view);
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolException(field + " is not valid UTF-8");
        }
    }

    /** A node or hub id: u8 length, then the id's ASCII text. */
    NodeId nodeId(String field) throws ProtocolException {
        int length = u8(field + " length");
        if (length == 0 || length > LinkLimits.MAX_ID) {
            throw new ProtocolException(field + " of " + length + " bytes is not 1-" + LinkLimits.MAX_ID);
        }
        need(length, field);
        String text = in.readCharSequence(length, StandardCharsets.US_ASCII).toString();
        NodeId id = NodeId.ofCanonicalOrNull(text);
        if (id != null) {
            return id;
        }
        try {
            id = NodeId.of(text);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException(field + ": " + e.getMessage());
        }
        if (!id.toString().equals(text)) {
            // One id, one spelling on the wire: no case or blank variants of a live node's id.
            throw new ProtocolException(field + " '" + text + "' is not in canonical (lower case) form");
        }
        return id;
    }

    /** An IPv4 or IPv6 address: u8 length (4 or 16), then the raw address. */
    InetAddress address(String field) throws ProtocolException {
        int length = u8(field + " length");
        if (length != 4 && length != 16) {
            throw new ProtocolException(field + " has length " + length + ", not 4 or 16");
        }
        try {
            return InetAddress.getByAddress(fixedBytes(field, length));
        } catch (UnknownHostException e) {
            throw new ProtocolException(field + ": " + e.getMessage());
        }
    }

    /**
     * A list count (u16), checked against the bytes left: every element takes at least
     * {@code minElementBytes}, so a count that cannot be true is refused before any list is made.
     */
    int count(String field, int max, int minElementBytes) throws ProtocolException {
        int count = u16(field + " count");
        if (count > max) {
            throw new ProtocolException(field + " count " + count + " exceeds the maximum of " + max);
        }
        if ((long) count * minElementBytes > in.readableBytes()) {
            throw new ProtocolException(
                    field + " count " + count + " cannot fit in the " + in.readableBytes() + " bytes left");
        }
        return count;
    }

    void expectEnd(String message) throws ProtocolException {
        if (in.isReadable()) {
            throw new ProtocolException(in.readableBytes() + " trailing bytes after " + message);
        }
    }
}
