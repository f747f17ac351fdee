package io.traverse.testbed;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;

/**
 * How one connection is measured, by the bench harness's node agents and by {@code traverse perf}
 * alike: one-byte round trips on an echo, and verified bulk transfers each way. Uploads go to a
 * {@link DigestEcho} service; downloads come from a source that sends the bytes of a seeded stream
 * the client can make itself, so both ends check length and SHA-256 and end-of-stream.
 */
public final class PathMeasurement {
    /** The longest download a source serves. */
    public static final long MAX_SOURCE_BYTES = 1L << 40;

    private PathMeasurement() {}

    /** Echo service: sends back every byte until end-of-stream, then closes. */
    public static void serveEcho(Socket socket) throws IOException {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            byte[] buffer = new byte[8192];
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        }
    }

    /**
     * Times {@code rounds} one-byte round trips on an echo connection after as many to warm up,
     * then half-closes and expects end-of-stream. Returns the round trips in nanoseconds, sorted.
     */
    public static long[] roundTrips(Socket socket, int rounds) throws IOException {
        socket.setTcpNoDelay(true);
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        long[] times = new long[rounds];
        for (int i = -rounds; i < rounds; i++) { // the first half warms up
            long t0 = System.nanoTime();
            out.write(i & 0x7f);
            out.flush();
            int b = in.read();
            if (b != (i & 0x7f)) {
                throw new IOException("echo answered " + b + " to " + (i & 0x7f));
            }
            if (i >= 0) {
                times[i] = System.nanoTime() - t0;
            }
        }
        socket.shutdownOutput();
        if (in.read() >= 0) {
            throw new IOException("the echo sent more than it was sent");
        }
        Arrays.sort(times);
        return times;
    }

    /** The value at quantile {@code q} (0-1) of sorted samples. */
    public static long quantile(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.floor(q * sorted.length))];
    }

    /**
     * Source service: reads a length and a seed (8 bytes each), sends that many bytes of the seed's
     * stream, and closes once the client has half-closed.
     */
    public static void serveSource(Socket socket) throws IOException {
        try (socket) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            long length = in.readLong();
            long seed = in.readLong();
            if (length < 0 || length > MAX_SOURCE_BYTES) {
                throw new IOException("asked for " + length + " bytes, beyond 0-" + MAX_SOURCE_BYTES);
            }
            OutputStream out = socket.getOutputStream();
            DigestEcho.seededStream(length, seed, (chunk, n) -> out.write(chunk, 0, n));
            out.flush();
            socket.shutdownOutput();
            if (in.read() >= 0) {
                throw new IOException("the client sent more than its request");
            }
        }
    }

    /**
     * Asks a source for {@code length} bytes of {@code seed}'s stream, half-closes, reads them to
     * end-of-stream and checks length and SHA-256 against the same stream made here.
     */
    public static void fetchVerified(Socket socket, long length, long seed) throws IOException {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeLong(length);
        out.writeLong(seed);
        out.flush();
        socket.shutdownOutput();
        DigestEcho.Digest got = DigestEcho.readToEof(socket.getInputStream());
        DigestEcho.Digest expected = DigestEcho.digestOfSeeded(length, seed);
        if (!got.equals(expected)) {
            throw new IOException("download failed verification: asked for " + length + " bytes, got " + got.length()
                    + (got.length() == length ? " with another SHA-256" : ""));
        }
    }
}
