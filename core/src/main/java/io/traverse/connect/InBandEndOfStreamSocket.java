package io.traverse.connect;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;

/**
 * A connected socket whose end-of-stream travels in-band ({@link InBandEndOfStream}): what both
 * ends of a tunnelled connection hand the application, so that {@link #shutdownOutput()} reaches
 * the peer as end-of-stream although the tunnel between them cannot carry a TCP half-close.
 * Everything else is forwarded ({@link ForwardingSocket}) to the kernel socket underneath (the end
 * of the tunnel): timeouts, options, addresses. {@link #getChannel()} is null: the channel would
 * bypass the chunks.
 */
public final class InBandEndOfStreamSocket extends ForwardingSocket {
    /** How long close() may spend sending end-of-stream before it just closes. */
    static final long CLOSE_WRITE_LIMIT_NANOS = 1_000_000_000L;

    /** How long close() reads on, after its own end-of-stream, for the peer's (see {@code drainToEnd}). */
    static final int CLOSE_DRAIN_MILLIS = 200;

    private final Socket tunnel;
    private final InBandEndOfStream.ChunkInputStream in;
    private final InBandEndOfStream.ChunkOutputStream out;

    /** Wraps a connected socket whose identity handshake agreed on in-band end-of-stream. */
    public InBandEndOfStreamSocket(Socket tunnel) throws IOException {
        this.tunnel = tunnel;
        this.in = new InBandEndOfStream.ChunkInputStream(tunnel.getInputStream(), this);
        this.out = new InBandEndOfStream.ChunkOutputStream(tunnel.getOutputStream(), this);
    }

    /** The socket to the tunnel's end. */
    public Socket tunnel() {
        return tunnel;
    }

    @Override
    protected Socket delegate() {
        return tunnel;
    }

    @Override
    public InputStream getInputStream() throws IOException {
        checkOpen();
        return in;
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        checkOpen();
        return out;
    }

    /** Sends end-of-stream in-band; the tunnel itself stays open for the other direction. */
    @Override
    public void shutdownOutput() throws IOException {
        checkOpen();
        if (!out.end()) {
            throw new SocketException("Socket output is already shutdown");
        }
    }

    @Override
    public void shutdownInput() throws IOException {
        checkOpen();
        in.shut();
    }

    @Override
    public boolean isOutputShutdown() {
        return out.ended();
    }

    @Override
    public boolean isInputShutdown() {
        return in.isShut();
    }

    /**
     * Ends the stream in-band first (best effort), so the peer reads a clean end rather than a
     * reset, then reads on for a moment to the peer's end-of-stream, so that no unread byte makes
     * this end's close a reset either. That write could block on a tunnel whose far application reads nothing, where a TCP
     * close would not: after {@link #CLOSE_WRITE_LIMIT_NANOS} the tunnel is closed under it.
     */
    @SuppressWarnings("try") // the watch acts by existing: it closes the tunnel if the close outlives its limit
    @Override
    public void close() throws IOException {
        if (tunnel.isClosed()) {
            return;
        }
        try (DeadlineWatchdog.Watch limit = DeadlineWatchdog.shared()
                .watch(System.nanoTime() + CLOSE_WRITE_LIMIT_NANOS, this::closeTunnelQuietly)) {
            out.endIfIdle();
            if (out.ended()) {
                in.drainToEnd(tunnel, CLOSE_DRAIN_MILLIS);
            }
        } catch (IOException ignored) {
            // the tunnel is gone already: the peer learns of it as a reset
        } finally {
            tunnel.close();
        }
    }

    private void closeTunnelQuietly() {
        try {
            tunnel.close();
        } catch (IOException ignored) {
            // closing is all that was asked
        }
    }

    private void checkOpen() throws SocketException {
        if (tunnel.isClosed()) {
            throw new SocketException("Socket is closed");
        }
    }

    /** Refused: an urgent byte would stop at the tunnel's end instead of reaching the peer. */
    @Override
    public void sendUrgentData(int data) throws IOException {
        throw new SocketException("Urgent data does not cross a tunnel");
    }
}
