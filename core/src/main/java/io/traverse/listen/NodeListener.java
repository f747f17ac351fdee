package io.traverse.listen;

import io.traverse.config.PortRange;
import io.traverse.firewall.SimulatedFirewall;
import io.traverse.identity.NodeIdentity;
import java.io.Closeable;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one real listening port of a node (paper §3.2.2). Whoever leads ({@link ListenerLead}: an
 * application thread waiting in {@code accept()}, else the acceptor thread) accepts, answers a
 * handshake whose request has already arrived in full, and hands every other connection to the
 * {@link HandshakeLoop} thread; it never waits for a client, so nothing a client does can stall it.
 */
public final class NodeListener implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(NodeListener.class);

    private final ServerSocketChannel server;
    private final HandshakeLoop handshakes;
    private final ListenerLead lead;
    private final Thread acceptorThread;
    private final Thread handshakeThread;
    private volatile boolean closed;

    private NodeListener(ServerSocketChannel server, HandshakeLoop handshakes, String threadPrefix) throws IOException {
        this.server = server;
        this.handshakes = handshakes;
        this.lead = new ListenerLead(server, handshakes);
        this.acceptorThread = new Thread(lead::runAcceptor, threadPrefix + "-acceptor");
        this.handshakeThread = new Thread(handshakes, threadPrefix + "-handshakes");
        acceptorThread.setDaemon(true);
        handshakeThread.setDaemon(true);
    }

    /**
     * Binds the first free port of {@code range} on {@code bindAddress} (null: every interface).
     * Threads start with {@link #start}, once the node knows its identity. A connection whose
     * handshake agreed on TLS goes to {@code kernelTls} on its way to the application.
     *
     * @throws BindException naming the range when every port in it is taken
     */
    public static NodeListener bind(
            InetAddress bindAddress,
            PortRange range,
            HandshakeJudge judge,
            SimulatedFirewall firewall,
            Supplier<NodeIdentity> identity,
            Duration handshakeTimeout,
            int maxPending,
            io.traverse.connect.KernelTls kernelTls,
            String threadPrefix)
            throws IOException {
        ServerSocketChannel server = bindInRange(bindAddress, range);
        HandshakeLoop loop = null;
        try {
            loop = new HandshakeLoop(judge, firewall, identity, handshakeTimeout.toNanos(), maxPending, kernelTls);
            return new NodeListener(server, loop, threadPrefix);
        } catch (IOException | RuntimeException e) {
            if (loop != null) {
                loop.closeUnstarted();
            }
            server.close();
            throw e;
        }
    }

    static ServerSocketChannel bindInRange(InetAddress bindAddress, PortRange range) throws IOException {
        if (range.isAny()) {
            return open(new InetSocketAddress(bindAddress, 0));
        }
        BindException last = null;
        for (int port : range.ports()) {
            try {
                return open(new InetSocketAddress(bindAddress, port));
            } catch (BindException e) {
                last = e;
                log.debug("Port {} is taken, trying the next in {}", port, range);
            }
        }
        BindException e = new BindException("every port in traverse.port.range " + range + " is in use"
                + (bindAddress == null ? "" : " on " + bindAddress.getHostAddress()));
        if (last != null) {
            e.addSuppressed(last);
        }
        throw e;
    }

    private static ServerSocketChannel open(InetSocketAddress address) throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        try {
            channel.bind(address, 1024);
            return channel;
        } catch (IOException e) {
            channel.close();
            throw e;
        }
    }

    public void start() {
        handshakeThread.start();
        acceptorThread.start();
    }

    /** Lets the application threads waiting on {@code queue} take connections from this listener themselves. */
    public void attach(AcceptQueue queue) {
        queue.ledBy(lead);
    }

    /** Some backlog has room again (or closed): handshakes waiting for it are looked at. */
    public void roomFreed() {
        handshakes.roomFreed();
    }

    public InetSocketAddress localAddress() throws IOException {
        return (InetSocketAddress) server.getLocalAddress();
    }

    public int port() {
        return server.socket().getLocalPort();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        lead.close();
        try {
            server.close();
        } finally {
            handshakes.stop();
        }
        join(acceptorThread);
        join(handshakeThread);
        lead.closeSelector(); // deregisters the closed listening socket: only now is its port free
    }

    private static void join(Thread thread) {
        if (thread.isAlive() && thread != Thread.currentThread()) {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
