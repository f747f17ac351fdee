package io.traverse;

import io.traverse.connect.ForwardingSocket;
import io.traverse.node.Cancellation;
import io.traverse.node.LocalNode;
import io.traverse.spi.ConnectOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The socket {@code TraverseSocketFactory.createSocket()} returns: it exists before its
 * destination is known, so it cannot be the kernel socket itself. {@link #connect} runs the
 * module chain; from then on every call goes to the established connection, and
 * {@link #getInputStream()} / {@link #getOutputStream()} hand out that connection's own streams,
 * so data never passes through this object. Options set before {@code connect} are applied to
 * the connection (the receive buffer before its TCP handshake, as window scaling requires).
 *
 * <p>{@link #getRemoteSocketAddress()} is the address given to {@code connect}, e.g. a
 * {@link VirtualSocketAddress}; {@link #getInetAddress()} the peer's real IP address.
 * {@link #getChannel()} is null: the connection is not a kernel socket for every module.
 *
 * <p>Until {@code connect} there is no connection to forward to ({@link ForwardingSocket} with a
 * null delegate): options, the local address and the close are kept here until it exists.
 */
public class TraverseSocket extends ForwardingSocket {
    private static volatile Integer systemReceiveBuffer;
    private static volatile Integer systemSendBuffer;

    private final LocalNode node;
    private final Object lock = new Object();
    private final Map<SocketOption<?>, Object> pendingOptions = new LinkedHashMap<>();
    private volatile Socket delegate;
    private volatile SocketAddress remote;
    private InetSocketAddress localBind;
    private Cancellation connecting;
    private volatile boolean closed;
    private int soTimeout;
    private boolean oobInline;

    TraverseSocket(LocalNode node) {
        super();
        this.node = node;
    }

    /** Connects through the module chain; {@code timeout} 0 means the configured {@code traverse.connect.timeout}. */
    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        if (endpoint == null) {
            throw new IllegalArgumentException("connect: The address can't be null");
        }
        if (timeout < 0) {
            throw new IllegalArgumentException("connect: timeout can't be negative");
        }
        Cancellation cancellation = new Cancellation();
        int receiveBuffer;
        synchronized (lock) {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            if (delegate != null) {
                throw new SocketException("already connected");
            }
            if (connecting != null) {
                throw new SocketException("connect already in progress");
            }
            connecting = cancellation;
            Object rcv = pendingOptions.get(StandardSocketOptions.SO_RCVBUF);
            receiveBuffer = rcv == null ? 0 : (Integer) rcv;
        }
        Socket connected;
        try {
            connected = node.connect(endpoint, timeout, new ConnectOptions(localBind, receiveBuffer), cancellation);
        } catch (IOException | RuntimeException e) {
            synchronized (lock) {
                connecting = null;
                if (closed) {
                    throw new SocketException("Socket closed");
                }
            }
            throw e;
        }
        synchronized (lock) {
            connecting = null;
            if (closed) {
                connected.close();
                throw new SocketException("Socket closed");
            }
            try {
                applyPendingOptions(connected);
            } catch (IOException | RuntimeException e) {
                connected.close();
                throw e;
            }
            remote = endpoint;
            delegate = connected;
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void applyPendingOptions(Socket s) throws IOException {
        for (Map.Entry<SocketOption<?>, Object> e : pendingOptions.entrySet()) {
            if (e.getKey() != StandardSocketOptions.SO_RCVBUF) {
                s.setOption((SocketOption) e.getKey(), e.getValue());
            }
        }
        if (soTimeout != 0) {
            s.setSoTimeout(soTimeout);
        }
        if (oobInline) {
            s.setOOBInline(true);
        }
    }

    /** Records the local address; the connection binds it when it is made. */
    @Override
    public void bind(SocketAddress bindpoint) throws IOException {
        synchronized (lock) {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            if (localBind != null || delegate != null) {
                throw new SocketException("Already bound");
            }
            if (bindpoint != null && !(bindpoint instanceof InetSocketAddress)) {
                throw new IllegalArgumentException("Unsupported address type");
            }
            InetSocketAddress a = bindpoint == null ? new InetSocketAddress(0) : (InetSocketAddress) bindpoint;
            if (a.isUnresolved()) {
                throw new SocketException("Unresolved address");
            }
            localBind = a;
        }
    }

    /** The established connection, once there is one. */
    java.util.Optional<Socket> connection() {
        return java.util.Optional.ofNullable(delegate);
    }

    /** The established connection; null before {@code connect} has made one. */
    @Override
    protected Socket delegate() {
        return delegate;
    }

    @Override
    public void close() throws IOException {
        Cancellation c;
        Socket s;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            c = connecting;
            s = delegate;
        }
        if (c != null) {
            c.cancel();
        }
        if (s != null) {
            s.close();
        }
    }

    @Override
    public boolean isConnected() {
        return delegate != null;
    }

    @Override
    public boolean isBound() {
        synchronized (lock) {
            return delegate != null || localBind != null;
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    /** The port connected to: the virtual port for a virtual address. */
    @Override
    public int getPort() {
        SocketAddress r = remote;
        if (r instanceof VirtualSocketAddress v) {
            return v.getPort();
        }
        return r instanceof InetSocketAddress i ? i.getPort() : 0;
    }

    /** The address given to {@code connect}. */
    @Override
    public SocketAddress getRemoteSocketAddress() {
        return remote;
    }

    @Override
    public InetAddress getLocalAddress() {
        Socket s = delegate;
        if (s != null) {
            return s.getLocalAddress();
        }
        synchronized (lock) {
            return localBind != null ? localBind.getAddress() : new InetSocketAddress(0).getAddress();
        }
    }

    @Override
    public int getLocalPort() {
        Socket s = delegate;
        if (s != null) {
            return s.getLocalPort();
        }
        synchronized (lock) {
            return localBind != null ? localBind.getPort() : -1;
        }
    }

    @Override
    public SocketAddress getLocalSocketAddress() {
        Socket s = delegate;
        if (s != null) {
            return s.getLocalSocketAddress();
        }
        synchronized (lock) {
            return localBind;
        }
    }

    // ---- options: straight to the connection once it exists, remembered until then ----

    private <T> void store(SocketOption<T> name, T value) throws IOException {
        synchronized (lock) {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            Socket s = delegate;
            if (s != null) {
                s.setOption(name, value);
            } else {
                pendingOptions.put(name, value);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private <T> T read(SocketOption<T> name, T unset) throws SocketException {
        synchronized (lock) {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            Socket s = delegate;
            if (s != null) {
                try {
                    return s.getOption(name);
                } catch (IOException e) {
                    throw e instanceof SocketException se ? se : new SocketException(e.getMessage());
                }
            }
            Object v = pendingOptions.get(name);
            return v == null ? unset : (T) v;
        }
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        setQuietly(StandardSocketOptions.TCP_NODELAY, on);
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return read(StandardSocketOptions.TCP_NODELAY, false);
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        setQuietly(StandardSocketOptions.SO_KEEPALIVE, on);
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return read(StandardSocketOptions.SO_KEEPALIVE, false);
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        if (on && linger < 0) {
            throw new IllegalArgumentException("invalid value for SO_LINGER");
        }
        setQuietly(StandardSocketOptions.SO_LINGER, on ? Math.min(linger, 65535) : -1);
    }

    @Override
    public int getSoLinger() throws SocketException {
        return read(StandardSocketOptions.SO_LINGER, -1);
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("negative send size");
        }
        setQuietly(StandardSocketOptions.SO_SNDBUF, size);
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return read(StandardSocketOptions.SO_SNDBUF, systemDefault(true));
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("invalid receive size");
        }
        setQuietly(StandardSocketOptions.SO_RCVBUF, size);
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return read(StandardSocketOptions.SO_RCVBUF, systemDefault(false));
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        if (tc < 0 || tc > 255) {
            throw new IllegalArgumentException("tc is not in range 0 -- 255");
        }
        setQuietly(StandardSocketOptions.IP_TOS, tc);
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return read(StandardSocketOptions.IP_TOS, 0);
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        setQuietly(StandardSocketOptions.SO_REUSEADDR, on);
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return read(StandardSocketOptions.SO_REUSEADDR, false);
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        synchronized (lock) {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            Socket s = delegate;
            if (s != null) {
                s.setOOBInline(on);
            } else {
                oobInline = on;
            }
        }
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        synchronized (lock) {
            Socket s = delegate;
            return s != null ? s.getOOBInline() : oobInline;
        }
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout can't be negative");
        }
        synchronized (lock) {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            Socket s = delegate;
            if (s != null) {
                s.setSoTimeout(timeout);
            } else {
                soTimeout = timeout;
            }
        }
    }

    @Override
    public int getSoTimeout() throws SocketException {
        synchronized (lock) {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            Socket s = delegate;
            return s != null ? s.getSoTimeout() : soTimeout;
        }
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        store(name, value);
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return read(name, null);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        Socket s = delegate;
        return s != null
                ? s.supportedOptions()
                : Set.of(
                        StandardSocketOptions.TCP_NODELAY,
                        StandardSocketOptions.SO_KEEPALIVE,
                        StandardSocketOptions.SO_LINGER,
                        StandardSocketOptions.SO_SNDBUF,
                        StandardSocketOptions.SO_RCVBUF,
                        StandardSocketOptions.IP_TOS,
                        StandardSocketOptions.SO_REUSEADDR);
    }

    private <T> void setQuietly(SocketOption<T> name, T value) throws SocketException {
        try {
            store(name, value);
        } catch (SocketException e) {
            throw e;
        } catch (IOException e) {
            throw new SocketException(e.getMessage());
        }
    }

    /** What the system gives an unconnected socket, as {@code Socket} would report. */
    private static int systemDefault(boolean send) {
        Integer value = send ? systemSendBuffer : systemReceiveBuffer;
        if (value == null) {
            try (Socket probe = new Socket()) {
                systemSendBuffer = probe.getSendBufferSize();
                systemReceiveBuffer = probe.getReceiveBufferSize();
            } catch (IOException e) {
                return 65536;
            }
            value = send ? systemSendBuffer : systemReceiveBuffer;
        }
        return value;
    }

    @Override
    public String toString() {
        Socket s = delegate;
        if (s == null) {
            return closed ? "TraverseSocket[closed]" : "TraverseSocket[unconnected]";
        }
        return "TraverseSocket[to=" + remote + ", via " + s + "]";
    }
}
