package io.traverse;

import io.traverse.identity.NodeIdentity;
import io.traverse.node.Cancellation;
import io.traverse.spi.ConnectOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import javax.net.SocketFactory;

/**
 * A drop-in {@link SocketFactory} that reaches Traverse nodes wherever they are. Destinations:
 * <ul>
 *   <li>a {@link VirtualSocketAddress}, or its NODE text as the host of {@link #createSocket(String, int)},
 *       or inside an unresolved {@link InetSocketAddress} (what JDBC drivers and HTTP clients pass);</li>
 *   <li>a name registered at the hub network by a server ({@code createServerSocket(name, port)}),
 *       as the host of {@link #createSocket(String, int)} or inside an unresolved {@link InetSocketAddress}:
 *       resolved through the node's hub to that node, then connected like a virtual address;</li>
 *   <li>any other host name or address: plain TCP, exactly like the JDK's factory (a node without
 *       hubs never asks one).</li>
 * </ul>
 * {@code createSocket(host, port)} returns the winning module's socket: the kernel socket itself
 * for direct, reverse and splice (wrapped to carry half-close through an SSH tunnel), a relayed
 * socket for routed and long-poll. {@code createSocket()}
 * returns an unconnected {@link TraverseSocket} that delegates to the connection once made.
 *
 * <p>The no-argument constructor (used when a library loads the factory by class name) and
 * {@link #getDefault()} use the default node, configured by {@link TraverseConfig#load()}.
 */
public class TraverseSocketFactory extends SocketFactory {
    private static final TraverseSocketFactory DEFAULT = new TraverseSocketFactory();

    private final NodeSource source;

    /** A factory on the default node. */
    public TraverseSocketFactory() {
        this(Traverse::defaultNode);
    }

    TraverseSocketFactory(NodeSource source) {
        this.source = source;
    }

    public static TraverseSocketFactory getDefault() {
        return DEFAULT;
    }

    @Override
    public Socket createSocket() throws IOException {
        return new TraverseSocket(source.node());
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return source.node().connect(destination(host, port), 0, ConnectOptions.NONE, new Cancellation());
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return source.node().connect(destination(host, port), 0, local(localHost, localPort), new Cancellation());
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return source.node().connect(new InetSocketAddress(host, port), 0, ConnectOptions.NONE, new Cancellation());
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return source.node()
                .connect(new InetSocketAddress(address, port), 0, local(localAddress, localPort), new Cancellation());
    }

    /** Connects to any {@link SocketAddress} the factory understands, with a timeout (0: the configured one). */
    public Socket connect(SocketAddress destination, int timeoutMillis) throws IOException {
        return source.node().connect(destination, timeoutMillis, ConnectOptions.NONE, new Cancellation());
    }

    private static SocketAddress destination(String host, int port) throws UnknownHostException {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range:" + port);
        }
        if (host == null) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        }
        if (NodeIdentity.looksLikeIdentity(host)) {
            try {
                return new VirtualSocketAddress(NodeIdentity.parse(host), port);
            } catch (IllegalArgumentException e) {
                throw new UnknownHostException(e.getMessage());
            }
        }
        return InetSocketAddress.createUnresolved(host, port);
    }

    private static ConnectOptions local(InetAddress localAddress, int localPort) {
        return new ConnectOptions(new InetSocketAddress(localAddress, localPort), 0);
    }
}
