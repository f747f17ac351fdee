package io.traverse.direct;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/** End-to-end data checks: length and SHA-256 of what went in and what came out. */
final class Transfers {
    /** What one side sent or received. */
    record Digest(long length, String sha256) {}

    private Transfers() {}

    /** Writes {@code length} pseudo-random bytes from {@code seed}, then half-closes; returns their digest. */
    static Digest sendAndHalfClose(Socket socket, long length, long seed) throws IOException {
        MessageDigest sha = sha256();
        Random random = new Random(seed);
        byte[] chunk = new byte[64 * 1024];
        OutputStream out = socket.getOutputStream();
        long left = length;
        while (left > 0) {
            int n = (int) Math.min(chunk.length, left);
            random.nextBytes(chunk);
            out.write(chunk, 0, n);
            sha.update(chunk, 0, n);
            left -= n;
        }
        out.flush();
        socket.shutdownOutput();
        return new Digest(length, HexFormat.of().formatHex(sha.digest()));
    }

    /** Reads until EOF; returns the digest of everything read. */
    static Digest readToEof(Socket socket) throws IOException {
        MessageDigest sha = sha256();
        InputStream in = socket.getInputStream();
        byte[] buffer = new byte[64 * 1024];
        long total = 0;
        int n;
        while ((n = in.read(buffer)) >= 0) {
            sha.update(buffer, 0, n);
            total += n;
        }
        return new Digest(total, HexFormat.of().formatHex(sha.digest()));
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
