package io.traverse.connect;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import java.util.Set;

/**
 * A connected socket whose end-of-stream travels in-band ({@link InBandEndOfStream}): what both
 * ends of a tunnelled connection hand the application, so that {@link #shutdownOutput()} reaches
 * the peer as end-of-stream although the tunnel between them cannot carry a TCP half-close.
 * Everything else is the kernel socket underneath (the end of the tunnel): timeouts, options,
 * addresses. {@link #getChannel()} is null: the channel would bypass the chunks.
 */
public final class InBandEndOfStreamSocket extends Socket {
    /** How long close() may spend sending end-of-stream before it just closes. */
    static final long CLOSE_WRITE_LIMIT_NANOS = 1_000_000_000L;

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
     * reset. That write could block on a tunnel whose far application reads nothing, where a TCP
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

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
        throw new SocketException("Already connected");
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        throw new SocketException("Already connected");
    }

    @Override
    public void bind(SocketAddress bindpoint) throws IOException {
        throw new SocketException("Already bound");
    }

    @Override
    public boolean isConnected() {
        return tunnel.isConnected();
    }

    @Override
    public boolean isBound() {
        return tunnel.isBound();
    }

    @Override
    public boolean isClosed() {
        return tunnel.isClosed();
    }

    @Override
    public InetAddress getInetAddress() {
        return tunnel.getInetAddress();
    }

    @Override
    public int getPort() {
        return tunnel.getPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return tunnel.getRemoteSocketAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        return tunnel.getLocalAddress();
    }

    @Override
    public int getLocalPort() {
        return tunnel.getLocalPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return tunnel.getLocalSocketAddress();
    }

    @Override
    public SocketChannel getChannel() {
        return null;
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        tunnel.setTcpNoDelay(on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return tunnel.getTcpNoDelay();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        tunnel.setKeepAlive(on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return tunnel.getKeepAlive();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        tunnel.setSoLinger(on, linger);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return tunnel.getSoLinger();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        tunnel.setSoTimeout(timeout);
    }

    @Override
    public int getSoTimeout() throws SocketException {
        return tunnel.getSoTimeout();
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        tunnel.setSendBufferSize(size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return tunnel.getSendBufferSize();
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        tunnel.setReceiveBufferSize(size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return tunnel.getReceiveBufferSize();
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        tunnel.setTrafficClass(tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return tunnel.getTrafficClass();
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        tunnel.setReuseAddress(on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return tunnel.getReuseAddress();
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        tunnel.setOOBInline(on);
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        return tunnel.getOOBInline();
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        throw new SocketException("Urgent data does not cross a tunnel");
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        tunnel.setOption(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return tunnel.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return tunnel.supportedOptions();
    }

    @Override
    public String toString() {
        return "InBandEndOfStreamSocket[" + tunnel + "]";
    }
}
