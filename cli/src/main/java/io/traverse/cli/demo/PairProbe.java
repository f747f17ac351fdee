package io.traverse.cli.demo;

import io.traverse.ConnectionInfo;
import io.traverse.Traverse;
import io.traverse.VirtualSocketAddress;
import io.traverse.connect.InBandEndOfStreamSocket;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

/**
 * Connects one demo node to another the way an application would ({@code createSocket(host,
 * port)} with the virtual address's host string) and measures: first setup, cached setup,
 * 1-byte round-trip time, throughput, and an end-to-end SHA-256 check with half-close.
 */
final class PairProbe {
    /** Round trips and throughput bytes at most for a connection relayed by hubs or tunnelled through an sshd. */
    static final int RELAYED_PINGS = 500;

    static final long RELAYED_COUNT_BYTES = 16L << 20;

    private final int pings;
    private final long countBytes;
    private final long verifyBytes;
    private final byte[] chunk = new byte[256 * 1024];

    PairProbe(int pings, long countBytes, long verifyBytes) {
        this.pings = pings;
        this.countBytes = countBytes;
        this.verifyBytes = verifyBytes;
        new Random(1).nextBytes(chunk);
    }

    PairResult probe(
            String from, Traverse client, String to, VirtualSocketAddress target, PairResult.Expectation expected) {
        try {
            long start = System.nanoTime();
            Duration first;
            Duration rtt;
            String module;
            boolean relayed;
            try (Socket s = connect(client, target)) {
                first = Duration.ofNanos(System.nanoTime() - start);
                // A tunnelled connection carries end-of-stream in-band: that socket class says it came through an sshd.
                module = client.connectionInfo(s).map(ConnectionInfo::module).orElse("?")
                        + (s instanceof InBandEndOfStreamSocket ? "/ssh" : "");
                // Bytes through hubs or an sshd move 5-10 times slower than a kernel socket's: fewer keep the demo
                // short.
                relayed = module.equals("routed") || s instanceof InBandEndOfStreamSocket;
                rtt = medianRtt(s, relayed ? Math.min(pings, RELAYED_PINGS) : pings);
            }
            start = System.nanoTime();
            Duration cached;
            double mbps;
            try (Socket s = connect(client, target)) {
                cached = Duration.ofNanos(System.nanoTime() - start);
                mbps = throughput(s, relayed ? Math.min(countBytes, RELAYED_COUNT_BYTES) : countBytes);
            }
            long verified;
            try (Socket s = connect(client, target)) {
                verified = verify(s);
            }
            return new PairResult(from, to, expected, true, module, first, cached, rtt, mbps, verified, null);
        } catch (SocketTimeoutException e) {
            return PairResult.failed(from, to, expected, e.getMessage(), true);
        } catch (IOException e) {
            return PairResult.failed(from, to, expected, e.getMessage(), false);
        }
    }

    private static Socket connect(Traverse client, VirtualSocketAddress target) throws IOException {
        Socket s = client.socketFactory().createSocket(target.getHostString(), target.getPort());
        s.setTcpNoDelay(true);
        return s;
    }

    private static Duration medianRtt(Socket s, int pings) throws IOException {
        OutputStream out = s.getOutputStream();
        InputStream in = s.getInputStream();
        out.write(DemoProtocol.PING);
        long[] samples = new long[pings];
        for (int i = 0; i < pings; i++) {
            long t = System.nanoTime();
            out.write(i & 0xff);
            if (in.read() != (i & 0xff)) {
                throw new IOException("ping " + i + " came back wrong");
            }
            samples[i] = System.nanoTime() - t;
        }
        Arrays.sort(samples);
        return Duration.ofNanos(samples[pings / 2]);
    }

    private double throughput(Socket s, long countBytes) throws IOException {
        OutputStream out = s.getOutputStream();
        long start = System.nanoTime();
        out.write(DemoProtocol.COUNT);
        for (long left = countBytes; left > 0; left -= chunk.length) {
            out.write(chunk, 0, (int) Math.min(chunk.length, left));
        }
        s.shutdownOutput();
        long counted = new DataInputStream(s.getInputStream()).readLong();
        long nanos = System.nanoTime() - start;
        if (counted != countBytes) {
            throw new IOException("server counted " + counted + " bytes of " + countBytes);
        }
        return countBytes / (nanos / 1e9) / 1e6;
    }

    /** Sends fresh random bytes, half-closes, and compares the server's length and SHA-256 with ours. */
    private long verify(Socket s) throws IOException {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        Random random = new Random(verifyBytes);
        byte[] buffer = new byte[64 * 1024];
        OutputStream out = s.getOutputStream();
        out.write(DemoProtocol.VERIFY);
        for (long left = verifyBytes; left > 0; left -= buffer.length) {
            int n = (int) Math.min(buffer.length, left);
            random.nextBytes(buffer);
            sha.update(buffer, 0, n);
            out.write(buffer, 0, n);
        }
        s.shutdownOutput();
        DataInputStream in = new DataInputStream(s.getInputStream());
        long length = in.readLong();
        byte[] digest = new byte[DemoProtocol.DIGEST_LENGTH];
        in.readFully(digest);
        if (in.read() != -1) {
            throw new IOException("server sent more than its digest");
        }
        if (length != verifyBytes || !Arrays.equals(digest, sha.digest())) {
            throw new IOException("data corrupted: server got " + length + " bytes with another SHA-256");
        }
        return length;
    }
}
