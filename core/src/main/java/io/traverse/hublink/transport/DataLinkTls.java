package io.traverse.hublink.transport;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;

/**
 * TLS for the data link, which is a non-blocking {@link SocketChannel} read by one thread and
 * written by the application threads that send rather than a Netty channel: the JDK's
 * {@link SSLEngine} between the link's buffers and the socket. Reads unwrap into a record-sized
 * buffer of plaintext and copy out what the caller has room for; writes wrap a whole batch into
 * records and hand the socket as many as fit at once, so a batch of frames still costs few system
 * calls.
 */
final class DataLinkTls {
    /** How long a blocking step may wait; throws when the deadline has passed. */
    interface Waiter {
        void awaitReadable() throws IOException;

        void awaitWritable() throws IOException;
    }

    /** Records wrapped before they are written: several, so a batch of frames is one write. */
    private static final int RECORDS_PER_WRITE = 8;

    private final SSLEngine engine;
    private final SocketChannel channel;
    /** Bytes read from the socket, not yet unwrapped; in write mode between calls. */
    private final ByteBuffer netIn;
    /** Plaintext unwrapped, not yet handed out; in read mode between calls. */
    private final ByteBuffer appIn;
    /** Records wrapped, not yet written; in read mode between calls (empty when written). */
    private final ByteBuffer netOut;

    DataLinkTls(SSLEngine engine, SocketChannel channel) {
        this.engine = engine;
        this.channel = channel;
        int packet = engine.getSession().getPacketBufferSize();
        this.netIn = ByteBuffer.allocateDirect(packet * 2);
        this.appIn = ByteBuffer.allocateDirect(engine.getSession().getApplicationBufferSize())
                .flip();
        this.netOut = ByteBuffer.allocateDirect(packet * RECORDS_PER_WRITE).flip();
    }

    SSLEngine engine() {
        return engine;
    }

    /** Starts the handshake: our first record leaves right behind our preamble, before the hub's arrives. */
    void begin(Waiter waiter) throws IOException {
        engine.beginHandshake();
        if (engine.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
            netOut.clear();
            engine.wrap(ByteBuffer.allocate(0), netOut);
            netOut.flip();
            flush(waiter);
        }
    }

    /** Finishes the handshake, starting with {@code alreadyRead}: what came after the hub's preamble. */
    void finish(Waiter waiter, ByteBuffer alreadyRead) throws IOException {
        if (alreadyRead.remaining() > netIn.remaining()) {
            throw new SSLException("a TLS record larger than the engine's packet size");
        }
        netIn.put(alreadyRead);
        ByteBuffer none = ByteBuffer.allocate(0);
        while (true) {
            switch (engine.getHandshakeStatus()) {
                case NEED_WRAP -> {
                    netOut.clear();
                    SSLEngineResult r = engine.wrap(none, netOut);
                    netOut.flip();
                    flush(waiter);
                    if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                        throw new SSLException("the hub closed TLS during its handshake");
                    }
                }
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    netIn.flip();
                    SSLEngineResult r;
                    try {
                        r = engine.unwrap(netIn, appIn.compact());
                    } finally {
                        appIn.flip();
                        netIn.compact();
                    }
                    if (r.getStatus() == SSLEngineResult.Status.BUFFER_UNDERFLOW) {
                        if (readRaw() == 0) {
                            waiter.awaitReadable();
                        }
                    } else if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
                        throw new EOFException("the hub closed TLS during its handshake");
                    }
                }
                case NEED_TASK -> {
                    for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
                        task.run();
                    }
                }
                default -> {
                    return; // FINISHED or NOT_HANDSHAKING
                }
            }
        }
    }

    /** One socket read into {@link #netIn}; -1 at the end of the stream. */
    private int readRaw() throws IOException {
        if (!netIn.hasRemaining()) {
            throw new SSLException("a TLS record larger than the engine's packet size");
        }
        int n = channel.read(netIn);
        if (n < 0) {
            throw new EOFException("the hub closed the data link");
        }
        return n;
    }

    /**
     * Plaintext into {@code target}, as much as is there without waiting: unwrapped bytes first,
     * then records already read, then one socket read. Returns the bytes given; -1 at the end of the
     * stream with nothing given.
     */
    int read(ByteBuffer target) throws IOException {
        int given = 0;
        boolean readSocket = false;
        while (target.hasRemaining()) {
            if (appIn.hasRemaining()) {
                int n = Math.min(appIn.remaining(), target.remaining());
                ByteBuffer slice = appIn.slice();
                slice.limit(n);
                target.put(slice);
                appIn.position(appIn.position() + n);
                given += n;
                continue;
            }
            netIn.flip();
            SSLEngineResult r;
            try {
                r = engine.unwrap(netIn, appIn.clear());
            } finally {
                appIn.flip();
                netIn.compact();
            }
            switch (r.getStatus()) {
                case OK -> {
                    // plaintext (or a post-handshake message, e.g. a session ticket) taken; go on
                }
                case BUFFER_UNDERFLOW -> {
                    if (readSocket) {
                        return given;
                    }
                    readSocket = true;
                    int n = channel.read(netIn);
                    if (n < 0) {
                        return given > 0 ? given : -1;
                    }
                    if (n == 0) {
                        return given;
                    }
                }
                case CLOSED -> {
                    return given > 0 ? given : -1;
                }
                default -> throw new SSLException("unexpected TLS state " + r.getStatus() + " reading the data link");
            }
            if (r.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
                    task.run();
                }
            }
        }
        return given;
    }

    /** Wraps everything in {@code sources} and writes it, waiting while the socket is full. */
    void write(ByteBuffer[] sources, Waiter waiter) throws IOException {
        long left = 0;
        for (ByteBuffer b : sources) {
            left += b.remaining();
        }
        while (left > 0) {
            netOut.clear();
            int packet = engine.getSession().getPacketBufferSize();
            while (left > 0 && netOut.remaining() >= packet) {
                SSLEngineResult r = engine.wrap(sources, netOut);
                if (r.getStatus() != SSLEngineResult.Status.OK) {
                    netOut.flip();
                    throw new SSLException("cannot send on the data link: TLS " + r.getStatus());
                }
                left -= r.bytesConsumed();
            }
            netOut.flip();
            flush(waiter);
        }
    }

    private void flush(Waiter waiter) throws IOException {
        while (netOut.hasRemaining()) {
            if (channel.write(netOut) == 0) {
                waiter.awaitWritable();
            }
        }
    }
}
