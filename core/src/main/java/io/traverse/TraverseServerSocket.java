package io.traverse;

import io.traverse.identity.RegisteredName;
import io.traverse.listen.AcceptQueue;
import io.traverse.node.LocalNode;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.net.SocketTimeoutException;
import java.nio.channels.ServerSocketChannel;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A server socket on a virtual port of a Traverse node. It behaves like {@link ServerSocket}:
 * {@code accept()} honours {@code setSoTimeout} with {@code SocketTimeoutException("Accept timed
 * out")}, {@code close()} unblocks it with {@code SocketException("Socket closed")}, and the
 * backlog bounds connections accepted by the node but not yet by the application.
 *
 * <p>{@link #getLocalSocketAddress()} is the {@link VirtualSocketAddress} clients connect to and
 * {@link #getLocalPort()} the virtual port. Accepted sockets are the kernel sockets themselves.
 */
public class TraverseServerSocket extends ServerSocket {
    private final LocalNode node;
    private final Object lock = new Object();
    private AcceptQueue queue;
    private int port = -1;
    private String name;
    private volatile boolean closed;
    private volatile int soTimeout;

    TraverseServerSocket(LocalNode node) throws IOException {
        super();
        this.node = node;
    }

    /**
     * Binds to a virtual port: an {@link InetSocketAddress} or {@link VirtualSocketAddress} gives the
     * port; null or port 0 picks one. An <em>unresolved</em> {@code InetSocketAddress} binds a name
     * too, as {@link TraverseServerSocketFactory#createServerSocket(String, int)} describes.
     */
    @Override
    public void bind(SocketAddress endpoint) throws IOException {
        bind(endpoint, 0);
    }

    @Override
    public void bind(SocketAddress endpoint, int backlog) throws IOException {
        int wanted;
        String wantedName = null;
        if (endpoint == null) {
            wanted = 0;
        } else if (endpoint instanceof InetSocketAddress inet) {
            wanted = inet.getPort();
            if (inet.isUnresolved()) {
                wantedName = RegisteredName.normalize(inet.getHostString());
            }
        } else if (endpoint instanceof VirtualSocketAddress virtual) {
            if (!virtual.node().id().equals(node.identity().id())) {
                throw new SocketException("cannot bind " + virtual + ": it names another node than "
                        + node.identity().id().orElseThrow());
            }
            wanted = virtual.getPort();
        } else {
            throw new IllegalArgumentException(
                    "Unsupported address type: " + endpoint.getClass().getName());
        }
        synchronized (lock) {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            if (queue != null) {
                throw new SocketException("Already bound");
            }
            AcceptQueue q =
                    new AcceptQueue(backlog > 0 ? backlog : node.config().acceptBacklog());
            port = node.bindVirtualPort(wanted, q);
            queue = q;
            node.track(this);
        }
        if (wantedName != null) {
            try {
                bindName(wantedName);
            } catch (IOException | RuntimeException e) {
                close();
                throw e;
            }
        }
    }

    /** Registers the name at the hub network, waiting at most the hub timeout (plus a little for the answer to travel). */
    private void bindName(String wantedName) throws IOException {
        long waitMillis = node.config().hubTimeout().toMillis() + 1000;
        try {
            node.hubLink().names().bind(wantedName, port).get(waitMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while binding name '" + wantedName + "'");
        } catch (TimeoutException e) {
            node.hubLink().names().release(wantedName, port);
            throw new SocketTimeoutException(
                    "binding name '" + wantedName + "' got no answer within " + waitMillis + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                io.addSuppressed(new Exception("binding name '" + wantedName + "' here"));
                throw io;
            }
            throw new SocketException("cannot bind name '" + wantedName + "': " + cause);
        }
        synchronized (lock) {
            name = wantedName;
        }
    }

    /** The name clients reach this server socket by, if it was bound with one. */
    public Optional<String> name() {
        synchronized (lock) {
            return Optional.ofNullable(name);
        }
    }

    @Override
    public Socket accept() throws IOException {
        AcceptQueue q;
        int boundPort;
        synchronized (lock) {
            if (closed) {
                throw new SocketException("Socket is closed");
            }
            if (queue == null) {
                throw new SocketException("Socket is not bound yet");
            }
            q = queue;
            boundPort = port;
        }
        Socket accepted = q.take(soTimeout);
        node.accepted(accepted, new VirtualSocketAddress(node.identity(), boundPort));
        return accepted;
    }

    @Override
    public void close() throws IOException {
        AcceptQueue q;
        String boundName;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            q = queue;
            boundName = name;
        }
        if (boundName != null) {
            node.hubLink().names().release(boundName, port);
        }
        if (q != null) {
            node.unbindVirtualPort(port, q);
            q.close();
        }
        node.untrack(this);
        super.close();
    }

    /** The virtual address of this server socket, or null before bind. */
    @Override
    public SocketAddress getLocalSocketAddress() {
        return isBound() ? new VirtualSocketAddress(node.identity(), port) : null;
    }

    /** Same as {@link #getLocalSocketAddress()}, typed. */
    public VirtualSocketAddress virtualAddress() {
        return (VirtualSocketAddress) getLocalSocketAddress();
    }

    /** The virtual port, or -1 before bind. */
    @Override
    public int getLocalPort() {
        synchronized (lock) {
            return port;
        }
    }

    /** The address the node's real listening socket is bound to (the wildcard address when it listens on all). */
    @Override
    public InetAddress getInetAddress() {
        if (!isBound()) {
            return null;
        }
        return node.config().bindAddress().orElseGet(() -> new InetSocketAddress(0).getAddress());
    }

    @Override
    public boolean isBound() {
        synchronized (lock) {
            return queue != null;
        }
    }

    @Override
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        if (closed) {
            throw new SocketException("Socket is closed");
        }
        if (timeout < 0) {
            throw new IllegalArgumentException("timeout < 0");
        }
        soTimeout = timeout;
    }

    @Override
    public int getSoTimeout() throws IOException {
        if (closed) {
            throw new SocketException("Socket is closed");
        }
        return soTimeout;
    }

    /** Accepted connections are kernel sockets set up by the node; there is no per-server-socket buffer to size. */
    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        if (size <= 0) {
            throw new IllegalArgumentException("negative receive size");
        }
    }

    @Override
    public void setReuseAddress(boolean on) {
        // Virtual ports are freed at once on close; nothing lingers to reuse.
    }

    @Override
    public boolean getReuseAddress() {
        return true;
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        // no effect, as for most socket implementations
    }

    @Override
    public ServerSocketChannel getChannel() {
        return null;
    }

    @Override
    public <T> ServerSocket setOption(SocketOption<T> name, T value) throws IOException {
        throw new UnsupportedOperationException("'" + name + "' not supported on a virtual server socket");
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        throw new UnsupportedOperationException("'" + name + "' not supported on a virtual server socket");
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return Set.of();
    }

    @Override
    public String toString() {
        if (!isBound()) {
            return "TraverseServerSocket[unbound]";
        }
        String n = name().map(x -> "name " + x + ", ").orElse("");
        return "TraverseServerSocket[" + n + getLocalSocketAddress() + "]";
    }
}
