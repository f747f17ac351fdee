package io.traverse.connect;

import io.traverse.protocol.Deadline;
import io.traverse.spi.ConnectOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Plain TCP for legacy destinations (an {@code InetSocketAddress} that names no node): no
 * handshake, plain socket semantics. A host name's addresses are raced in resolver order, as
 * RFC 8305 does, instead of trying only the first like {@code new Socket(host, port)}.
 */
public final class PlainConnector {
    private final long staggerNanos;
    private final Executor executor;

    public PlainConnector(long staggerNanos, Executor executor) {
        this.staggerNanos = staggerNanos;
        this.executor = executor;
    }

    /** Resolves (if needed) and connects; returns a race that can be cancelled from another thread. */
    public StaggeredRace<Socket> prepare(InetSocketAddress destination, Deadline deadline, ConnectOptions options)
            throws IOException {
        if (!destination.isUnresolved()) {
            return race(List.of(destination), deadline, options);
        }
        return prepare(
                List.of(InetAddress.getAllByName(destination.getHostString())),
                destination.getPort(),
                deadline,
                options);
    }

    /** Connects to a name's addresses, already resolved (in the resolver's order), on {@code port}. */
    public StaggeredRace<Socket> prepare(
            List<InetAddress> resolved, int port, Deadline deadline, ConnectOptions options) {
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (InetAddress a : resolved) {
            addresses.add(new InetSocketAddress(a, port));
        }
        return race(addresses, deadline, options);
    }

    private StaggeredRace<Socket> race(List<InetSocketAddress> addresses, Deadline deadline, ConnectOptions options) {
        List<StaggeredRace.Attempt<Socket>> attempts = new ArrayList<>();
        for (InetSocketAddress a : addresses) {
            attempts.add(new SocketAttempt(a, deadline, options) {
                @Override
                protected void afterConnect(Socket connected) {
                    // plain TCP: nothing to add
                }
            });
        }
        boolean fixedLocalPort =
                options.localAddress() != null && options.localAddress().getPort() != 0;
        return new StaggeredRace<>(
                attempts,
                fixedLocalPort ? Long.MAX_VALUE : staggerNanos,
                deadline,
                executor,
                failure -> false,
                SocketAttempt::closeQuietly);
    }
}
