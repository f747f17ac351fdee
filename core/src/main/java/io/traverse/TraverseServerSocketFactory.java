package io.traverse;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import javax.net.ServerSocketFactory;

/**
 * A drop-in {@link ServerSocketFactory} whose server sockets are virtual ports of a Traverse node
 * ({@link TraverseServerSocket}). The port argument is the virtual port (0: any free one). A
 * virtual port is reachable on every address the node listens on ({@code traverse.bind}), so the
 * interface-address argument is not used.
 *
 * <p>A server socket may also carry a name that clients resolve through the hub network
 * ({@link #createServerSocket(String, int)}).
 *
 * <p>The no-argument constructor and {@link #getDefault()} use the default node.
 */
public class TraverseServerSocketFactory extends ServerSocketFactory {
    private static final TraverseServerSocketFactory DEFAULT = new TraverseServerSocketFactory();

    private final NodeSource source;

    public TraverseServerSocketFactory() {
        this(Traverse::defaultNode);
    }

    TraverseServerSocketFactory(NodeSource source) {
        this.source = source;
    }

    public static TraverseServerSocketFactory getDefault() {
        return DEFAULT;
    }

    /** An unbound server socket. */
    @Override
    public TraverseServerSocket createServerSocket() throws IOException {
        return new TraverseServerSocket(source.node());
    }

    @Override
    public TraverseServerSocket createServerSocket(int port) throws IOException {
        return createServerSocket(port, 0);
    }

    @Override
    public TraverseServerSocket createServerSocket(int port, int backlog) throws IOException {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("Port value out of range: " + port);
        }
        TraverseServerSocket server = new TraverseServerSocket(source.node());
        try {
            server.bind(new InetSocketAddress(port), backlog);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    @Override
    public TraverseServerSocket createServerSocket(int port, int backlog, InetAddress ifAddress) throws IOException {
        return createServerSocket(port, backlog);
    }

    /**
     * A server socket on virtual port {@code port} (0: any free one) that clients anywhere in the
     * hub network reach by {@code name}: {@code createSocket(name, port)}, an unresolved
     * {@code InetSocketAddress(name, port)}, or a URL such as {@code jdbc:postgresql://NAME:PORT/db}.
     * A name stands for this node, as a host name does: clients connect to it with the port they
     * choose. The name is registered at the hub network before this returns, stays registered across
     * hub failover, and is released when the server socket closes.
     *
     * @param name hostname-safe: letters, digits, '-' and '.' (see {@link io.traverse.identity.RegisteredName})
     * @throws java.net.BindException if another node holds the name (or a hub keeps it for one), or this node has bound it already
     * @throws java.net.SocketException if no hub can be asked within {@code traverse.hub.timeout}
     * @throws IllegalArgumentException if the name is not hostname-safe
     */
    public TraverseServerSocket createServerSocket(String name, int port) throws IOException {
        return createServerSocket(name, port, 0);
    }

    /** {@link #createServerSocket(String, int)} with a backlog (0: {@code traverse.accept.backlog}). */
    public TraverseServerSocket createServerSocket(String name, int port, int backlog) throws IOException {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("Port value out of range: " + port);
        }
        TraverseServerSocket server = new TraverseServerSocket(source.node());
        try {
            server.bind(InetSocketAddress.createUnresolved(name, port), backlog);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }
}
