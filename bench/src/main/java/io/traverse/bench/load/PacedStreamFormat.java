package io.traverse.bench.load;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes of one load connection. The client writes a 16-byte header (magic, chunk size, the
 * client group it belongs to, zero), then whole chunks at its pace; the first 8 bytes of each chunk
 * are the client's {@code System.nanoTime()} when it wrote the chunk, the rest seeded random bytes.
 * The server echoes those 8 bytes as soon as it has read the whole chunk (the client's per-event
 * round trip), hashes everything it reads, and after the client's half-close answers with
 * {@link #ANSWER_BYTES}: the length it read (8 bytes) and its SHA-256 (32 bytes), then closes.
 */
final class PacedStreamFormat {
    static final int MAGIC = 0x544c4431; // "TLD1"
    static final int HEADER_BYTES = 16;
    static final int ECHO_BYTES = 8;
    static final int ANSWER_BYTES = 40;
    /** A chunk must hold its timestamp; a larger one than this would only measure the harness. */
    static final int MIN_CHUNK = 16;

    static final int MAX_CHUNK = 1024 * 1024;

    private PacedStreamFormat() {}

    static byte[] header(int chunk, int group) {
        return ByteBuffer.allocate(HEADER_BYTES)
                .putInt(MAGIC)
                .putInt(chunk)
                .putInt(group)
                .putInt(0)
                .array();
    }

    /** {chunk size, group} of a header, or an exception naming what is wrong with it. */
    static int[] parseHeader(byte[] header) {
        ByteBuffer b = ByteBuffer.wrap(header);
        int magic = b.getInt();
        int chunk = b.getInt();
        int group = b.getInt();
        if (magic != MAGIC) {
            throw new IllegalArgumentException("bad magic " + Integer.toHexString(magic));
        }
        if (chunk < MIN_CHUNK || chunk > MAX_CHUNK) {
            throw new IllegalArgumentException("bad chunk size " + chunk);
        }
        return new int[] {chunk, group};
    }

    static byte[] answer(long length, byte[] sha256) {
        byte[] out = Arrays.copyOf(ByteBuffer.allocate(8).putLong(length).array(), ANSWER_BYTES);
        System.arraycopy(sha256, 0, out, 8, 32);
        return out;
    }
}
