package io.traverse.cli.pipe;

import io.traverse.Traverse;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local TCP port ({@code bind:localPort}) whose connections are piped through Traverse to
 * {@code host:port}, a registered name or a node address. Used by {@code traverse forward} and by
 * each {@code forward} line of an agent.
 *
 * @param service the name in logs and metrics
 */
public record ForwardedService(String service, int localPort, String bind, String host, int port)
        implements PipeService {
    public ForwardedService {
        if (localPort < 0 || localPort > 65535) {
            throw new IllegalArgumentException("LOCAL-PORT " + localPort + " is not within 0-65535");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("destination port " + port + " is not within 1-65535");
        }
    }

    /**
     * A forward to {@code destination}, given as {@code NAME:PORT} or {@code NODE:PORT}.
     *
     * @throws IllegalArgumentException if the destination has no port, or one that is not a number
     */
    public static ForwardedService of(String service, int localPort, String bind, String destination) {
        int colon = destination.lastIndexOf(':');
        if (colon <= 0 || colon == destination.length() - 1) {
            throw new IllegalArgumentException("DESTINATION '" + destination + "' must be NAME:PORT or NODE:PORT");
        }
        int port;
        try {
            port = Integer.parseInt(destination.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "DESTINATION '" + destination + "': '" + destination.substring(colon + 1) + "' is not a port");
        }
        return new ForwardedService(service, localPort, bind, destination.substring(0, colon), port);
    }

    /** Looked up on first use: a logger made when picocli builds the command would fix the log level before {@code --log-level} applies. */
    private static Logger log() {
        return LoggerFactory.getLogger(ForwardedService.class);
    }

    public String destination() {
        return host + ":" + port;
    }

    @Override
    public String kind() {
        return "forward";
    }

    @Override
    public String describe() {
        return "forwarding " + bind + ":" + localPort + " to " + destination();
    }

    /**
     * Listens on the local port: done before anything else, so that a port in use fails at once.
     *
     * @throws BindException saying which address and port, and what to do about a port in use
     */
    public ServerSocket listen() throws IOException {
        try {
            return new ServerSocket(localPort, 50, InetAddress.getByName(bind));
        } catch (BindException e) {
            throw new BindException("cannot listen on " + bind + ":" + localPort + ": " + e.getMessage()
                    + (String.valueOf(e.getMessage()).contains("in use")
                            ? " (choose another LOCAL-PORT, or 0 for any)"
                            : ""));
        }
    }

    /**
     * Starts accepting on {@code listener} (from {@link #listen()}) and piping through {@code node}.
     *
     * @param ownsNode whether closing the returned pipe closes the node too
     */
    public RunningPipe<ServerSocket> start(
            Traverse node, ServerSocket listener, PipeCounters counters, boolean ownsNode) {
        RunningPipe<ServerSocket> forward = new RunningPipe<>(node, listener, counters, ownsNode);
        Thread acceptor = new Thread(() -> acceptLoop(forward), "traverse-forward-" + service);
        acceptor.setDaemon(true);
        acceptor.start();
        return forward;
    }

    private void acceptLoop(RunningPipe<ServerSocket> forward) {
        while (!forward.listener().isClosed()) {
            Socket local;
            try {
                local = forward.listener().accept();
            } catch (IOException e) {
                if (!forward.listener().isClosed()) {
                    log().warn(
                                    "Accepting on port {} failed: {}",
                                    forward.listener().getLocalPort(),
                                    e.toString());
                    forward.pauseAfterAcceptError();
                }
                continue;
            }
            forward.counters().accepted();
            // Connecting may take a while (a module race): not on the accept thread.
            Thread connector = new Thread(
                    () -> {
                        Socket remote;
                        try {
                            remote = forward.traverse().socketFactory().createSocket(host, port);
                        } catch (IOException e) {
                            forward.counters().failed();
                            log().warn(
                                            "Connection from {}: could not reach {}: {}; resetting it",
                                            local.getRemoteSocketAddress(),
                                            destination(),
                                            e.getMessage());
                            SocketPipe.resetQuietly(local);
                            return;
                        }
                        String how = forward.traverse()
                                .connectionInfo(remote)
                                .map(i -> " by " + i.module() + " (setup "
                                        + i.setupTime().toMillis() + " ms)")
                                .orElse(" by plain TCP");
                        forward.pipe(
                                local,
                                remote,
                                "traverse-forward-" + service,
                                "connection from " + local.getRemoteSocketAddress() + " to " + destination() + how);
                    },
                    "traverse-forward-connect");
            connector.setDaemon(true);
            connector.start();
        }
    }
}
