package io.traverse.wire;

import io.netty.buffer.ByteBuf;
import io.traverse.identity.NodeId;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/** Writes the primitives of a frame; the messages have validated their fields already. */
final class WireWriter {
    private final ByteBuf out;

    WireWriter(ByteBuf out) {
        this.out = out;
    }

    WireWriter u8(int value) {
        out.writeByte(value);
        return this;
    }

    WireWriter u16(int value) {
        out.writeShort(value);
        return this;
    }

    WireWriter u32(long value) {
        out.writeInt((int) value);
        return this;
    }

    WireWriter u64(long value) {
        out.writeLong(value);
        return this;
    }

    WireWriter fixedBytes(byte[] bytes) {
        out.writeBytes(bytes);
        return this;
    }

    /** {@code long bytes}: u32 length, then the readable bytes of {@code bytes} (not consumed). */
    WireWriter longBytes(ByteBuf bytes) {
        out.writeInt(bytes.readableBytes());
        out.writeBytes(bytes, bytes.readerIndex(), bytes.readableBytes());
        return this;
    }

    WireWriter bytes(byte[] bytes) {
        out.writeShort(bytes.length);
        out.writeBytes(bytes);
        return this;
    }

    WireWriter text(String text) {
        int lengthAt = out.writerIndex();
        out.writeShort(0);
        int written = out.writeCharSequence(text, StandardCharsets.UTF_8);
        out.setShort(lengthAt, written);
        return this;
    }

    WireWriter nodeId(NodeId id) {
        String text = id.toString();
        out.writeByte(text.length());
        out.writeCharSequence(text, StandardCharsets.US_ASCII);
        return this;
    }

    WireWriter address(InetAddress address) {
        byte[] raw = address.getAddress();
        out.writeByte(raw.length);
        out.writeBytes(raw);
        return this;
    }

    WireWriter count(int count) {
        out.writeShort(count);
        return this;
    }
}
