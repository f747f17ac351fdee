package io.traverse.hublink;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;

/**
 * Seeded pseudo-random byte streams for end-to-end checks: written in pieces of a chosen shape,
 * read back in reads of a chosen size, compared as SHA-256 and length.
 */
final class SeededStreams {
    private SeededStreams() {}

    /** Takes one piece of a stream. */
    interface Piece {
        void accept(byte[] chunk, int length) throws IOException;
    }

    /** Cuts the stream of a seed into pieces. */
    interface Shape {
        void cut(long seed, int bytes, Piece piece) throws IOException;
    }

    /** Pieces of 100,003 bytes: odd-sized, so that frames do not line up with writes. */
    static final Shape EVEN = (seed, bytes, piece) -> {
        Random random = new Random(seed);
        byte[] chunk = new byte[100_003];
        for (int left = bytes; left > 0; ) {
            int n = Math.min(left, chunk.length);
            random.nextBytes(chunk);
            piece.accept(chunk, n);
            left -= n;
        }
    };

    static void write(Shape shape, OutputStream out, long seed, int bytes) throws IOException {
        shape.cut(seed, bytes, (chunk, n) -> out.write(chunk, 0, n));
    }

    static byte[] expectedDigest(Shape shape, long seed, int bytes) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        shape.cut(seed, bytes, (chunk, n) -> sha.update(chunk, 0, n));
        return withLength(sha.digest(), bytes);
    }

    /** SHA-256 and length of everything up to EOF, read in reads of at most {@code readSizes} bytes each. */
    static byte[] digestToEof(InputStream in, IntSupplier readSizes) throws Exception {
        return digestToEof(in, readSizes, total -> {});
    }

    /** The same, telling {@code progress} the bytes read so far after each read. */
    static byte[] digestToEof(InputStream in, IntSupplier readSizes, LongConsumer progress) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] buffer = new byte[256 * 1024];
        long total = 0;
        for (int n; (n = in.read(buffer, 0, Math.min(buffer.length, readSizes.getAsInt()))) > 0; ) {
            sha.update(buffer, 0, n);
            total += n;
            progress.accept(total);
        }
        return withLength(sha.digest(), total);
    }

    /**
     * Writes {@code bytes} of the seed's stream and half-closes, while reading the other end's to
     * EOF; returns the digest of what was read.
     */
    static byte[] exchange(Socket s, Executor threads, Shape shape, long seed, int bytes, IntSupplier readSizes)
            throws Exception {
        CompletableFuture<Void> writing = CompletableFuture.runAsync(
                () -> {
                    try {
                        write(shape, s.getOutputStream(), seed, bytes);
                        s.shutdownOutput();
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        byte[] digest = digestToEof(s.getInputStream(), readSizes);
        writing.get(120, TimeUnit.SECONDS);
        return digest;
    }

    static byte[] withLength(byte[] digest, long length) {
        byte[] out = Arrays.copyOf(digest, 40);
        ByteBuffer.wrap(out, 32, 8).putLong(length);
        return out;
    }
}
