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
}
