package io.traverse.routed;

import io.traverse.VirtualSocketAddress;
import io.traverse.identity.NodeId;
import io.traverse.identity.NodeIdentity;
import io.traverse.spi.MeasuredConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.util.Objects;
import java.util.Set;

/**
 * A connected {@link Socket} whose bytes travel through hubs ({@link RoutedConnection}). It
 * behaves as a kernel socket does: reads honour {@link #setSoTimeout}, {@link #shutdownOutput()}
 * is a half-close the other end reads as EOF, {@link #shutdownInput()} discards what arrives, a
 * reset (by the other end, a hub on the way, or the link) fails reads and writes with
 * {@link SocketException} "Connection reset", and close releases everything. It has no IP path:
 * {@link #getRemoteSocketAddress()} and {@link #getLocalSocketAddress()} are
 * {@link VirtualSocketAddress}es, {@link #getInetAddress()} is the unspecified address 0.0.0.0
 * unless the peer's identity names an address. TCP options are accepted and kept, by the typed
 * setters and {@link #setOption} alike (a socket from {@code createSocket()} sets them by option),
 * but change nothing (the hub links carry the bytes) except SO_LINGER 0, which makes
 * {@link #close()} a reset; {@link #getChannel()} is null, as for any socket not
 * made by a channel. As a {@link MeasuredConnection} it reports the bytes its application read and
 * wrote and the hubs on its path, for {@code Traverse.connectionStatistics}.
 */
final class RoutedSocket extends Socket implements MeasuredConnection {
    private static final InetAddress UNSPECIFIED = unspecified();

    private final RoutedConnection connection;
    private final VirtualSocketAddress local;
    private final VirtualSocketAddress remote;
    private final InputStream in;
    private final OutputStream out;
    private volatile int soTimeout;
    private volatile boolean tcpNoDelay = true;
    private volatile boolean keepAlive;
    private volatile int linger = -1;
    private volatile int trafficClass;

    /** An accepted connection: the opener is known by its id alone. */
    RoutedSocket(RoutedConnection connection, NodeId localId, NodeId opener) {
        this(
                connection,
                new VirtualSocketAddress(NodeIdentity.builder().id(localId).build(), connection.virtualPort()),
                new VirtualSocketAddress(NodeIdentity.builder().id(opener).build(), 0));
    }

    RoutedSocket(RoutedConnection connection, VirtualSocketAddress local, VirtualSocketAddress remote) {
        this.connection = Objects.requireNonNull(connection);
        this.local = local;
        this.remote = remote;
        this.in = new RoutedInputStream();
        this.out = new RoutedOutputStream();
    }

    private static InetAddress unspecified() {
        try {
            return InetAddress.getByAddress(new byte[4]);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    private final class RoutedInputStream extends InputStream {
        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            return connection.read(b, off, len, soTimeout);
        }

        @Override
        public int available() throws IOException {
            if (connection.isClosed()) {
                throw new SocketException("Socket closed");
            }
            return connection.available();
        }

        @Override
        public void close() throws IOException {
            RoutedSocket.this.close();
        }
    }

    private final class RoutedOutputStream extends OutputStream {
        @Override
        public void write(int b) throws IOException {
            connection.write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            Objects.checkFromIndexSize(off, len, b.length);
            connection.write(b, off, len);
        }

        @Override
        public void close() throws IOException {
            RoutedSocket.this.close();
        }
    }

    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        throw new SocketException("already connected");
    }

    @Override
    public void bind(SocketAddress bindpoint) throws IOException {
        throw new SocketException("already bound");
    }

    @Override
    public InputStream getInputStream() throws IOException {
        if (connection.isClosed()) {
            throw new SocketException("Socket is closed");
        }
        if (connection.isInputShutdown()) {
            throw new SocketException("Socket input is shutdown");
        }
        return in;
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        if (connection.isClosed()) {
            throw new SocketException("Socket is closed");
        }
        if (connection.isOutputShutdown()) {
            throw new SocketException("Socket output is shutdown");
        }
        return out;
    }

    @Override
    public void shutdownInput() throws IOException {
        if (connection.isClosed()) {
            throw new SocketException("Socket is closed");
        }
        if (connection.isInputShutdown()) {
            throw new SocketException("Socket input is already shutdown");
        }
        connection.shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        if (connection.isClosed()) {
            throw new SocketException("Socket is closed");
        }
        if (connection.isOutputShutdown()) {
            throw new SocketException("Socket output is already shutdown");
        }
        connection.shutdownOutput();
    }

    /** Closes as a kernel socket does: FIN, or RESET with unread data; with SO_LINGER 0 always RESET. */
    @Override
    public void close() {
        if (linger == 0) {
            connection.abort();
        } else {
            connection.close();
        }
    }

    @Override
    public boolean isConnected() {
        return true;
    }

    @Override
    public boolean isBound() {
        return true;
    }

    @Override
    public boolean isClosed() {
        return connection.isClosed();
    }

    @Override
    public boolean isInputShutdown() {
        return connection.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return connection.isOutputShutdown();
    }

    @Override
    public InetAddress getInetAddress() {
        return firstAddress(remote).getAddress();
    }

    @Override
    public int getPort() {
        return remote.getPort();
    }

    @Override
    public SocketAddress getRemoteSocketAddress() {
        return remote;
    }

    @Override
    public InetAddress getLocalAddress() {
        return firstAddress(local).getAddress();
    }

    @Override
    public int getLocalPort() {
        return local.getPort();
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        return local;
    }

    private static InetSocketAddress firstAddress(VirtualSocketAddress address) {
        return address.node().addresses().stream()
                .filter(a -> !a.isUnresolved())
                .findFirst()
                .orElse(new InetSocketAddress(UNSPECIFIED, address.getPort()));
    }

    @Override
    public SocketChannel getChannel() {
        return null;
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        throw new SocketException("urgent data is not supported on a routed connection");
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout can't be negative");
        }
        checkOpen();
        soTimeout = timeout;
    }

    @Override
    public int getSoTimeout() throws SocketException {
        checkOpen();
        return soTimeout;
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        checkOpen();
        tcpNoDelay = on;
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        checkOpen();
        return tcpNoDelay;
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        checkOpen();
        keepAlive = on;
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        checkOpen();
        return keepAlive;
    }

    @Override
    public void setSoLinger(boolean on, int seconds) throws SocketException {
        checkOpen();
        if (on && seconds < 0) {
            throw new IllegalArgumentException("invalid value for SO_LINGER");
        }
        linger = on ? Math.min(seconds, 65535) : -1;
    }

    @Override
    public int getSoLinger() throws SocketException {
        checkOpen();
        return linger;
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        if (tc < 0 || tc > 255) {
            throw new IllegalArgumentException("tc is not in range 0 -- 255");
        }
        checkOpen();
        trafficClass = tc;
    }

    @Override
    public int getTrafficClass() throws SocketException {
        checkOpen();
        return trafficClass;
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("negative send size");
        }
        checkOpen();
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        checkOpen();
        return RoutedModule.WINDOW;
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("invalid receive size");
        }
        checkOpen();
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        checkOpen();
        return RoutedModule.WINDOW;
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        checkOpen();
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        checkOpen();
        return false;
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        checkOpen();
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        checkOpen();
        return false;
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        Objects.requireNonNull(name, "name");
        checkOpen();
        if (name == StandardSocketOptions.TCP_NODELAY) {
            setTcpNoDelay((Boolean) value);
        } else if (name == StandardSocketOptions.SO_KEEPALIVE) {
            setKeepAlive((Boolean) value);
        } else if (name == StandardSocketOptions.SO_LINGER) {
            int seconds = (Integer) value;
            setSoLinger(seconds >= 0, Math.max(seconds, 0));
        } else if (name == StandardSocketOptions.IP_TOS) {
            setTrafficClass((Integer) value);
        } else if (name == StandardSocketOptions.SO_REUSEADDR) {
            setReuseAddress((Boolean) value);
        } else if (!supportedOptions().contains(name)) {
            throw new UnsupportedOperationException("'" + name + "' not supported");
        }
        return this;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(SocketOption<T> name) throws IOException {
        Objects.requireNonNull(name, "name");
        checkOpen();
        if (name == StandardSocketOptions.TCP_NODELAY) {
            return (T) Boolean.valueOf(tcpNoDelay);
        } else if (name == StandardSocketOptions.SO_KEEPALIVE) {
            return (T) Boolean.valueOf(keepAlive);
        } else if (name == StandardSocketOptions.SO_RCVBUF || name == StandardSocketOptions.SO_SNDBUF) {
            return (T) Integer.valueOf(RoutedModule.WINDOW);
        } else if (name == StandardSocketOptions.SO_LINGER) {
            return (T) Integer.valueOf(getSoLinger());
        } else if (name == StandardSocketOptions.IP_TOS) {
            return (T) Integer.valueOf(getTrafficClass());
        } else if (name == StandardSocketOptions.SO_REUSEADDR) {
            return (T) Boolean.valueOf(getReuseAddress());
        }
        throw new UnsupportedOperationException("'" + name + "' not supported");
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return Set.of(
                StandardSocketOptions.TCP_NODELAY,
                StandardSocketOptions.SO_KEEPALIVE,
                StandardSocketOptions.SO_RCVBUF,
                StandardSocketOptions.SO_SNDBUF,
                StandardSocketOptions.SO_LINGER,
                StandardSocketOptions.IP_TOS,
                StandardSocketOptions.SO_REUSEADDR);
    }

    private void checkOpen() throws SocketException {
        if (connection.isClosed()) {
            throw new SocketException("Socket is closed");
        }
    }

    @Override
    public long bytesIn() {
        return connection.bytesIn();
    }

    @Override
    public long bytesOut() {
        return connection.bytesOut();
    }

    @Override
    public int hubsTraversed() {
        return connection.hubs();
    }

    @Override
    public boolean sealed() {
        return connection.sealed();
    }

    @Override
    public String toString() {
        return "RoutedSocket[" + connection + "]";
    }
}
