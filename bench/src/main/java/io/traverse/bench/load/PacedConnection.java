package io.traverse.bench.load;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One client connection of a load run: connects (through its node, or with a plain socket for the
 * control runs of {@code --transport plain}), writes a chunk of the seed's
 * stream every interval and waits for the server's echo of the chunk's timestamp (the per-event
 * round trip), until its lifetime ends or the run finishes; then half-closes and checks the
 * server's length and SHA-256 against what it wrote, and that EOF follows. A chunk whose echo
 * comes after the next chunk was due counts as late and the pace restarts from now, so a slow
 * path shows as late chunks and lower throughput, never as a queue inside the harness.
 */
final class PacedConnection {
    /** Opens the connection's socket. */
    interface Dialer {
        Socket dial() throws IOException;
    }

    private final Dialer dialer;
    private final int chunk;
    private final long intervalNanos;
    private final long seed;
    private final int group;
    private final int readTimeoutMillis;
    private final StreamTally tally;
    /** Chunk bytes written so far (read by the reporter for the fairness window). */
    private volatile long written;

    PacedConnection(
            Dialer dialer,
            int chunk,
            long intervalNanos,
            long seed,
            int group,
            int readTimeoutMillis,
            StreamTally tally) {
        this.dialer = dialer;
        this.chunk = chunk;
        this.intervalNanos = intervalNanos;
        this.seed = seed;
        this.group = group;
        this.readTimeoutMillis = readTimeoutMillis;
        this.tally = tally;
    }

    long written() {
        return written;
    }

    /**
     * Runs the connection until {@code lifetimeNanos} have passed or {@code finish} opens; every
     * outcome goes to the tally.
     *
     * @return false if it could not connect
     */
    boolean run(long lifetimeNanos, CountDownLatch finish) throws InterruptedException {
        Socket s;
        try {
            s = dialer.dial();
        } catch (IOException e) {
            tally.failures().count("connect", String.valueOf(e.getMessage()));
            return false;
        }
        long started = System.nanoTime();
        tally.opened(this);
        String phase = "header";
        try (s) {
            s.setSoTimeout(readTimeoutMillis);
            OutputStream out = s.getOutputStream();
            DataInputStream in = new DataInputStream(s.getInputStream());
            MessageDigest sha = StreamServer.sha256();
            byte[] header = PacedStreamFormat.header(chunk, group);
            out.write(header);
            sha.update(header);
            long length = header.length;
            Random random = new Random(seed);
            byte[] buffer = new byte[chunk];
            ByteBuffer stamp = ByteBuffer.wrap(buffer, 0, 8);
            long next = started;
            int chunks = 0;
            long lastEcho = started;
            do {
                phase = "chunk " + (chunks + 1);
                random.nextBytes(buffer);
                long sent = System.nanoTime();
                stamp.putLong(0, sent);
                out.write(buffer);
                sha.update(buffer);
                length += chunk;
                written += chunk;
                tally.sent(chunk);
                long echo = in.readLong();
                long now = System.nanoTime();
                if (echo != sent) {
                    tally.failures().count("echo", "echo of another chunk: expected " + sent + ", got " + echo);
                    return true;
                }
                tally.latency((now - sent) / 1000);
                chunks++;
                lastEcho = now;
                next += intervalNanos;
                if (next < now) {
                    tally.late();
                    next = now;
                }
            } while (now() - started < lifetimeNanos && !finish.await(next - now(), TimeUnit.NANOSECONDS));
            phase = "half-close after " + chunks + " chunks";
            s.shutdownOutput();
            phase = "answer after " + chunks + " chunks";
            long answeredLength = in.readLong();
            byte[] digest = in.readNBytes(32);
            phase = "EOF after the answer";
            int after = in.read();
            if (after != -1) {
                tally.failures().count("after-answer", "byte " + after + " after the answer instead of EOF");
            } else if (answeredLength != length) {
                tally.mismatched(length - answeredLength, false);
                tally.failures().count("length", "server read " + answeredLength + " of " + length + " bytes");
            } else if (!Arrays.equals(digest, sha.digest())) {
                tally.mismatched(0, true);
                tally.failures()
                        .count("digest", "same length " + length + ", different SHA-256: reordered or corrupted");
            } else {
                tally.verified(length, chunks, (long) chunks * chunk, (lastEcho - started) / 1e9);
            }
        } catch (IOException | RuntimeException e) {
            tally.failures()
                    .count(
                            FailureKinds.kindOf(e),
                            "[" + phase + ", " + (System.nanoTime() - started) / 1_000_000 + " ms] " + e.getMessage());
        } finally {
            tally.closed(this);
        }
        return true;
    }

    private static long now() {
        return System.nanoTime();
    }
}
