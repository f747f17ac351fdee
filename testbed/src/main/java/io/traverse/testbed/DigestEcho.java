package io.traverse.testbed;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;

/**
 * The verification service that node agents run, and its client. The client sends bytes and
 * half-closes; the server reads until EOF, answers one line
 * {@code LENGTH SHA256 SERVED-BY PEER} — what it read, which node read it, and where the
 * connection came from as the server saw it (after every NAT on the way) — and closes. Equal
 * length and digest at both ends prove the data went through intact and that half-close reached
 * the far end; {@code SERVED-BY} proves which node the socket really led to.
 */
public final class DigestEcho {
    /** Longest reply line accepted. */
    private static final int MAX_REPLY = 1024;

    private static final int CHUNK = 64 * 1024;

    /** A length and SHA-256 (hex) of a byte stream. */
    public record Digest(long length, String sha256) {}

    /** The server's answer. */
    public record Reply(long length, String sha256, String servedBy, String peer) {
        String line() {
            return length + " " + sha256 + " " + servedBy + " " + peer;
        }

        static Reply parse(String line) throws IOException {
            String[] parts = line.trim().split(" ");
            if (parts.length != 4) {
                throw new IOException("malformed verification reply '" + line + "'");
            }
            try {
                return new Reply(Long.parseLong(parts[0]), parts[1], parts[2], parts[3]);
            } catch (NumberFormatException e) {
                throw new IOException("malformed length in verification reply '" + line + "'");
            }
        }

        /** True if the server read exactly what was sent. */
        public boolean matches(Digest sent) {
            return length == sent.length() && sha256.equals(sent.sha256());
        }
    }

    private DigestEcho() {}

    /** Server side: reads to EOF, answers, closes the socket. */
    public static Digest serve(Socket socket, String servedBy) throws IOException {
        try (socket) {
            Digest received = readToEof(socket.getInputStream());
            String peer = socket.getInetAddress().getHostAddress() + ":" + socket.getPort();
            OutputStream out = socket.getOutputStream();
            out.write((new Reply(received.length(), received.sha256(), servedBy, peer).line() + "\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return received;
        }
    }

    /** Takes the chunks of a seeded stream in order. */
    interface ChunkSink {
        void accept(byte[] chunk, int length) throws IOException;
    }

    /** {@code length} pseudo-random bytes of {@code seed}'s stream, in chunks: what every sender and checker here makes. */
    static void seededStream(long length, long seed, ChunkSink sink) throws IOException {
        Random random = new Random(seed);
        byte[] chunk = new byte[CHUNK];
        for (long left = length; left > 0; left -= chunk.length) {
            int n = (int) Math.min(chunk.length, left);
            random.nextBytes(chunk);
            sink.accept(chunk, n);
        }
    }

    /** The length and SHA-256 of {@code length} bytes of {@code seed}'s stream. */
    static Digest digestOfSeeded(long length, long seed) throws IOException {
        MessageDigest sha = sha256();
        seededStream(length, seed, (chunk, n) -> sha.update(chunk, 0, n));
        return new Digest(length, HexFormat.of().formatHex(sha.digest()));
    }

    /** Client side: sends {@code length} pseudo-random bytes from {@code seed}, then half-closes. */
    public static Digest sendAndHalfClose(Socket socket, long length, long seed) throws IOException {
        MessageDigest sha = sha256();
        OutputStream out = socket.getOutputStream();
        seededStream(length, seed, (chunk, n) -> {
            out.write(chunk, 0, n);
            sha.update(chunk, 0, n);
        });
        out.flush();
        socket.shutdownOutput();
        return new Digest(length, HexFormat.of().formatHex(sha.digest()));
    }

    /**
     * Client side: sends {@code length} bytes of {@code seed}'s stream, half-closes, and reads the reply; throws
     * unless the far end read exactly what was sent (length and SHA-256).
     */
    public static Reply exchangeVerified(Socket socket, long length, long seed) throws IOException {
        Digest sent = sendAndHalfClose(socket, length, seed);
        Reply reply = readReply(socket);
        if (!reply.matches(sent)) {
            throw new IOException("verification failed: sent " + sent.length() + " bytes with SHA-256 " + sent.sha256()
                    + ", the far end read " + reply.length() + " bytes with SHA-256 " + reply.sha256());
        }
        return reply;
    }

    /** Client side: reads the server's answer line and expects EOF after it. */
    public static Reply readReply(Socket socket) throws IOException {
        InputStream in = socket.getInputStream();
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new EOFException("connection closed before the verification reply"
                        + (line.size() > 0 ? " was complete: '" + line.toString(StandardCharsets.US_ASCII) + "'" : ""));
            }
            if (line.size() >= MAX_REPLY) {
                throw new IOException("verification reply longer than " + MAX_REPLY + " bytes");
            }
            line.write(b);
        }
        Reply reply = Reply.parse(line.toString(StandardCharsets.US_ASCII));
        if (in.read() >= 0) {
            throw new IOException("the server sent more than its verification reply");
        }
        return reply;
    }

    /** Reads to end-of-stream: the length and SHA-256 of what came. */
    static Digest readToEof(InputStream in) throws IOException {
        MessageDigest sha = sha256();
        byte[] buffer = new byte[CHUNK];
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
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
