package io.traverse.connect;

import io.traverse.protocol.IdentityHandshake;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketException;

/**
 * End-of-stream carried inside the byte stream, for connections that run through a tunnel which
 * does not carry TCP half-close (SSH port forwarding: JSch, MINA and OpenSSH's server side all turn
 * a half-close into nothing or into a full close). Agreed in the identity handshake
 * ({@link IdentityHandshake#IN_BAND_END_OF_STREAM}); from then on each direction is a row of chunks:
 *
 * <pre>
 * chunk:         length u16 (1-65535) | that many application bytes
 * end-of-stream: length u16 = 0, after which the sender writes nothing more
 * </pre>
 *
 * A reader that sees the tunnel end without the end-of-stream chunk reports a reset, not a clean
 * end: the data may be cut short. Documented in docs/protocol.md.
 */
public final class InBandEndOfStream {
    /** Largest chunk a writer sends; the format allows 65535. */
    static final int MAX_CHUNK = 32 * 1024;

    private InBandEndOfStream() {}

    /** Reads application bytes out of chunks; -1 once the end-of-stream chunk has arrived. */
    static final class ChunkInputStream extends InputStream {
        private final InputStream tunnel;
        private final java.io.Closeable owner;
        private final byte[] header = new byte[2];
        private int leftInChunk;
        private boolean ended;
        private volatile boolean shut;
        /** A reader is in {@link #read}: a close must not wait for it (it learns of the close itself). */
        private volatile boolean reading;

        /** @param owner closed by {@link #close()}, as closing a socket's stream closes the socket */
        ChunkInputStream(InputStream tunnel, java.io.Closeable owner) {
            this.tunnel = tunnel;
            this.owner = owner;
        }

        /** shutdownInput: reads return -1 from now on, as on a kernel socket. */
        void shut() {
            shut = true;
        }

        boolean isShut() {
            return shut;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) throws IOException {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            if (shut || ended) {
                return -1;
            }
            if (len == 0) {
                return 0;
            }
            reading = true;
            try {
                return readChunked(b, off, len);
            } finally {
                reading = false;
            }
        }

        /**
         * Reads and drops what comes up to the peer's end-of-stream, for at most {@code millis};
         * true once it has come. Nothing is done while a reader is at work. Bytes left unread at
         * close make the kernel answer with a reset, and a tunnel's far end may then drop what it
         * still held for this end, the peer's last bytes and end-of-stream among them. TLS above
         * this stream stops reading at the peer's close_notify, just before the end-of-stream
         * chunk that follows it: so a socket in TLS through a tunnel would close with those two
         * bytes unread.
         */
        boolean drainToEnd(java.net.Socket tunnelSocket, int millis) {
            if (reading) {
                return false;
            }
            synchronized (this) {
                if (ended) {
                    return true;
                }
                long deadline = System.nanoTime() + millis * 1_000_000L;
                byte[] sink = new byte[8192];
                try {
                    int before = tunnelSocket.getSoTimeout();
                    try {
                        while (!ended) {
                            long left = (deadline - System.nanoTime()) / 1_000_000;
                            if (left <= 0) {
                                return false;
                            }
                            tunnelSocket.setSoTimeout((int) left);
                            readChunked(sink, 0, sink.length);
                        }
                        return true;
                    } finally {
                        tunnelSocket.setSoTimeout(before);
                    }
                } catch (IOException e) {
                    return false; // a timeout, or the tunnel gone: close now
                }
            }
        }

        private int readChunked(byte[] b, int off, int len) throws IOException {
            while (leftInChunk == 0) {
                // Both header bytes in one read as a rule (one system call, not two).
                int got = 0;
                while (got < 2) {
                    int n = tunnel.read(header, got, 2 - got);
                    if (n < 0) {
                        throw new SocketException(
                                "Connection reset: the tunnel closed without the peer's end-of-stream");
                    }
                    got += n;
                }
                leftInChunk = ((header[0] & 0xff) << 8) | (header[1] & 0xff);
                if (leftInChunk == 0) {
                    ended = true;
                    return -1;
                }
            }
            int n = tunnel.read(b, off, Math.min(len, leftInChunk));
            if (n < 0) {
                throw new SocketException("Connection reset: the tunnel closed in the middle of a chunk");
            }
            leftInChunk -= n;
            return n;
        }

        @Override
        public synchronized int available() throws IOException {
            if (shut || ended) {
                return 0;
            }
            return Math.min(leftInChunk, tunnel.available());
        }

        @Override
        public void close() throws IOException {
            owner.close();
        }
    }

    /** Writes application bytes as chunks; {@link #end()} sends the end-of-stream chunk once. */
    static final class ChunkOutputStream extends OutputStream {
        private final OutputStream tunnel;
        private final java.io.Closeable owner;
        private final byte[] buffer = new byte[2 + MAX_CHUNK];
        /** Not a monitor: {@link #endIfIdle()} must not wait behind a write blocked on a full tunnel. */
        private final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();

        private volatile boolean ended;

        ChunkOutputStream(OutputStream tunnel, java.io.Closeable owner) {
            this.tunnel = tunnel;
            this.owner = owner;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            java.util.Objects.checkFromIndexSize(off, len, b.length);
            lock.lock();
            try {
                if (ended) {
                    throw new SocketException("Socket output is shutdown");
                }
                while (len > 0) {
                    // Header and data in one write: one segment, one system call.
                    int n = Math.min(len, MAX_CHUNK);
                    buffer[0] = (byte) (n >>> 8);
                    buffer[1] = (byte) n;
                    System.arraycopy(b, off, buffer, 2, n);
                    tunnel.write(buffer, 0, 2 + n);
                    off += n;
                    len -= n;
                }
            } finally {
                lock.unlock();
            }
        }

        /** Sends the end-of-stream chunk unless it has been sent; true when this call sent it. */
        boolean end() throws IOException {
            lock.lock();
            try {
                return endLocked();
            } finally {
                lock.unlock();
            }
        }

        /**
         * For close(): sends the end-of-stream chunk unless it has been sent or a write is under way
         * (perhaps blocked on a full tunnel, which the close must unblock: the peer then sees a reset,
         * as a close during a write gives on TCP).
         */
        void endIfIdle() throws IOException {
            if (lock.tryLock()) {
                try {
                    endLocked();
                } finally {
                    lock.unlock();
                }
            }
        }

        private boolean endLocked() throws IOException {
            if (ended) {
                return false;
            }
            ended = true;
            tunnel.write(new byte[2], 0, 2);
            tunnel.flush();
            return true;
        }

        boolean ended() {
            return ended;
        }

        @Override
        public void flush() throws IOException {
            tunnel.flush();
        }

        @Override
        public void close() throws IOException {
            owner.close();
        }
    }
}
