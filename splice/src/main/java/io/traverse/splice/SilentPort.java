package io.traverse.splice;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;

/**
 * Makes the kernel drop, rather than reset, a SYN that reaches a local port before this side's
 * own connect from it. A SYN to a port where nothing listens is answered with a reset, which
 * closes the NAT mappings it passes on its way back, both sides' (the peer's connect then fails);
 * a SYN to a listener whose accept queue is full is dropped without a word, and the peer's
 * connect goes on waiting. So this listens on the port and fills its queue with two connections
 * from this host that are never accepted. Once this side connects from the port, the kernel
 * gives the peer's SYNs to that socket (its four-tuple matches), which completes the
 * simultaneous open.
 */
final class SilentPort implements Closeable {
    /** The least backlog the JDK passes on as asked (below 1 it asks for 50); the queue is full beyond it. */
    private static final int BACKLOG = 1;

    /** A connect to this host's own listener takes microseconds; one that hangs must not hold up the splice. */
    private static final int FILLER_TIMEOUT_MILLIS = 200;

    private final ServerSocket listener;
    private final Socket[] fillers = new Socket[BACKLOG + 1];

    private SilentPort(ServerSocket listener) {
        this.listener = listener;
    }

    /** Listens on {@code local} (shared: SO_REUSEADDR, SO_REUSEPORT) with a full accept queue. */
    static SilentPort open(InetSocketAddress local) throws IOException {
        ServerSocket listener = new ServerSocket();
        SilentPort port = new SilentPort(listener);
        try {
            listener.setReuseAddress(true);
            listener.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            listener.bind(local, BACKLOG);
            InetAddress to = local.getAddress() == null || local.getAddress().isAnyLocalAddress()
                    ? InetAddress.getLoopbackAddress()
                    : local.getAddress();
            for (int i = 0; i < port.fillers.length; i++) {
                Socket filler = new Socket();
                port.fillers[i] = filler;
                filler.connect(new InetSocketAddress(to, listener.getLocalPort()), FILLER_TIMEOUT_MILLIS);
            }
            return port;
        } catch (IOException e) {
            port.close();
            throw new IOException("could not keep port " + local.getPort() + " silent: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        for (Socket filler : fillers) {
            if (filler != null) {
                SimultaneousOpen.closeQuietly(filler);
            }
        }
        SimultaneousOpen.closeQuietly(listener);
    }
}
