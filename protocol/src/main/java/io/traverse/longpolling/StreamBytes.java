package io.traverse.longpolling;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import java.util.ArrayDeque;

/**
 * The bytes of one direction of a session that were sent but not yet acknowledged, from offset
 * {@link #start()} to {@link #end()}. Offsets make every retry idempotent: a request repeated
 * after a lost answer asks for (or brings) the same offsets again. Not thread-safe: one event loop.
 */
public final class StreamBytes {
    private final ArrayDeque<ByteBuf> segments = new ArrayDeque<>();
    private long start;
    private long end;

    /** Takes ownership of {@code bytes}. */
    public void append(ByteBuf bytes) {
        int n = bytes.readableBytes();
        if (n == 0) {
            bytes.release();
            return;
        }
        segments.addLast(bytes);
        end += n;
    }

    public long start() {
        return start;
    }

    public long end() {
        return end;
    }

    public long size() {
        return end - start;
    }

    /** Drops everything before {@code offset} (the other side has it). */
    public void acknowledge(long offset) {
        if (offset < start || offset > end) {
            throw new IllegalArgumentException("acknowledged offset " + offset + " is outside " + start + "-" + end);
        }
        while (start < offset) {
            ByteBuf first = segments.peekFirst();
            int drop = (int) Math.min(first.readableBytes(), offset - start);
            if (drop == first.readableBytes()) {
                segments.pollFirst().release();
            } else {
                first.skipBytes(drop);
            }
            start += drop;
        }
    }

    /** Up to {@code max} bytes from {@code offset} (within start..end), as retained slices: the caller releases. */
    public ByteBuf read(long offset, int max, ByteBufAllocator alloc) {
        if (offset < start || offset > end) {
            throw new IllegalArgumentException("offset " + offset + " is outside " + start + "-" + end);
        }
        int want = (int) Math.min(max, end - offset);
        CompositeByteBuf out = alloc.compositeBuffer(Math.max(2, segments.size()));
        long at = start;
        for (ByteBuf s : segments) {
            if (want == 0) {
                break;
            }
            int len = s.readableBytes();
            if (at + len > offset) {
                int from = (int) Math.max(0, offset - at);
                int n = Math.min(len - from, want);
                out.addComponent(true, s.retainedSlice(s.readerIndex() + from, n));
                want -= n;
            }
            at += len;
        }
        return out;
    }

    /** Releases everything. */
    public void clear() {
        segments.forEach(ByteBuf::release);
        segments.clear();
        start = end;
    }
}
