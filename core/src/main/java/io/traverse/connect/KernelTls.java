package io.traverse.connect;

import io.traverse.identity.NodeId;
import io.traverse.protocol.Deadline;
import io.traverse.security.LinkTls;
import java.io.IOException;
import java.net.Socket;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS 1.3 on direct, reverse and spliced connections ({@code traverse.encrypt=all}). The module
 * or listener whose identity handshake agreed on TLS ({@code IdentityHandshake.TLS}) records the
 * kernel socket here with the peer's id; the node then wraps it before the application sees it:
 * as TLS client where the application connects, as TLS server where it accepts. Both ends prove
 * the keys of their node ids, so TLS is bound to the nodes the handshake named.
 *
 * <p>The connecting end runs its TLS handshake in {@code connect}, within the connect's deadline.
 * The accepting end runs its own on a thread of this class, within the handshake timeout (each a
 * deadline for the whole TLS handshake, kept by {@link DeadlineWatchdog}), and
 * queues the connection only when it is done: so a client's connect completes whether or not the
 * application is in {@code accept()} yet, as with a kernel socket. The threads are bounded; a
 * connection that finds none free is closed.
 *
 * <p>A socket in TLS runs with {@code TCP_NODELAY} (the application may clear it): the JDK's TLS
 * writes a flight's records, and the server's session ticket, in separate small segments, and
 * Nagle's algorithm held each behind the peer's delayed ACK, 40 ms at a time (a first connection
 * took 96 ms on loopback, 11 ms without).
 */
public final class KernelTls {
    private static final Logger log = LoggerFactory.getLogger(KernelTls.class);

    private final Supplier<LinkTls> tls;
    private final int acceptTimeoutMillis;
    private final Map<Socket, NodeId> agreed = Collections.synchronizedMap(new WeakHashMap<>());
    private final ExecutorService acceptors;

    /**
     * @param tls the node's TLS contexts (made on first use)
     * @param acceptTimeoutMillis how long the accepting end's TLS handshake may take
     * @param maxAccepting how many accepting handshakes may run at once
     */
    public KernelTls(Supplier<LinkTls> tls, int acceptTimeoutMillis, int maxAccepting) {
        this.tls = tls;
        this.acceptTimeoutMillis = acceptTimeoutMillis;
        this.acceptors = new ThreadPoolExecutor(0, maxAccepting, 30, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "traverse-tls-accept");
            t.setDaemon(true);
            return t;
        });
    }

    /** Records that the handshake on {@code socket} agreed on TLS with node {@code peer}. */
    public void agreed(Socket socket, NodeId peer) {
        agreed.put(socket, peer);
    }

    /** Moves the record of {@code from} to {@code to}, which wraps it (an in-band end-of-stream socket). */
    public void moveAgreement(Socket from, Socket to) {
        NodeId peer = agreed.remove(from);
        if (peer != null) {
            agreed.put(to, peer);
        }
    }

    /** True if {@code socket} was recorded as agreed and not wrapped yet. */
    public boolean isAgreed(Socket socket) {
        return agreed.containsKey(socket);
    }

    /**
     * The socket the application that connected gets: {@code socket} itself unless its handshake
     * agreed on TLS, else it wrapped in TLS, its handshake done within the deadline.
     *
     * @throws IOException if TLS fails or the peer proves another key (the socket is closed)
     */
    public Socket connecting(Socket socket, Deadline deadline) throws IOException {
        NodeId peer = agreed.remove(socket);
        if (peer == null) {
            return socket;
        }
        // The socket's read timeout bounds each read; the watch bounds the whole TLS handshake.
        try (DeadlineWatchdog.Watch watch = DeadlineWatchdog.shared()
                .watch(System.nanoTime() + deadline.remainingNanos(), () -> SocketAttempt.closeQuietly(socket))) {
            socket.setTcpNoDelay(true); // see the class comment
            SSLSocket wrapped = tls.get().connectingSocket(socket, peer);
            LinkTls.handshake(wrapped, peer, deadline.remainingMillis());
            return wrapped;
        } catch (IOException | RuntimeException e) {
            SocketAttempt.closeQuietly(socket);
            String why = deadline.remainingNanos() <= 0 ? "not done within the connect timeout" : e.getMessage();
            throw new IOException("TLS with node " + peer + " failed (traverse.encrypt=all): " + why, e);
        }
    }

    /**
     * Hands {@code socket} to {@code deliver} as the application that accepts gets it: at once
     * unless its handshake agreed on TLS, else wrapped in TLS once its handshake is done, on a
     * thread of this class. A connection whose TLS fails is closed and {@code giveUp} runs.
     */
    public void accepting(Socket socket, Consumer<Socket> deliver, Runnable giveUp) {
        NodeId peer = agreed.remove(socket);
        if (peer == null) {
            deliver.accept(socket);
            return;
        }
        accepting(socket, peer, deliver, giveUp);
    }

    /** The same for a socket whose handshake agreed on TLS with node {@code peer} (the listener knows it at hand). */
    public void accepting(Socket socket, NodeId peer, Consumer<Socket> deliver, Runnable giveUp) {
        try {
            acceptors.execute(() -> {
                long deadline = System.nanoTime() + acceptTimeoutMillis * 1_000_000L;
                boolean handedOver = false;
                // A client that trickles its TLS bytes would hold the slot and this thread for as
                // long as it likes under a read timeout alone: the watch ends the whole handshake.
                try (DeadlineWatchdog.Watch watch =
                        DeadlineWatchdog.shared().watch(deadline, () -> SocketAttempt.closeQuietly(socket))) {
                    socket.setTcpNoDelay(true); // see the class comment
                    SSLSocket wrapped = tls.get().acceptingSocket(socket);
                    LinkTls.handshake(wrapped, peer, acceptTimeoutMillis);
                    watch.close();
                    if (socket.isClosed()) {
                        throw new IOException("not done within " + acceptTimeoutMillis + " ms");
                    }
                    handedOver = true;
                    deliver.accept(wrapped);
                } catch (IOException | RuntimeException e) {
                    if (!handedOver) {
                        log.info(
                                "Closed a connection from node {}: its TLS failed{}: {}",
                                peer,
                                System.nanoTime() - deadline >= 0
                                        ? " (not done within " + acceptTimeoutMillis + " ms)"
                                        : "",
                                e.toString());
                        SocketAttempt.closeQuietly(socket);
                        giveUp.run();
                    }
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            log.warn("Closed a connection from node {}: all TLS handshake threads are busy", peer);
            SocketAttempt.closeQuietly(socket);
            giveUp.run();
        }
    }

    /** Stops the accepting threads (handshakes under way end with their sockets). */
    public void close() {
        acceptors.shutdownNow();
    }
}
