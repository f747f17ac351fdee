package io.traverse.cli.pipe;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP service on 127.0.0.1:{@code localPort} made reachable through the hub network as
 * {@code name:virtualPort}: every connection accepted there is piped to the local service, half-close
 * and resets included. Used by {@code traverse expose} and by each {@code expose} line of an agent.
 *
 * @param service the name in logs and metrics (for {@code traverse expose}, the registered name)
 */
public record ExposedService(String service, int localPort, String name, int virtualPort) implements PipeService {
    private static final int LOCAL_CONNECT_TIMEOUT_MILLIS = 10_000;

    public ExposedService {
        if (localPort < 1 || localPort > 65535) {
            throw new IllegalArgumentException("LOCAL-PORT " + localPort + " is not within 1-65535");
        }
        if (virtualPort < 1 || virtualPort > 65535) {
            throw new IllegalArgumentException("port " + virtualPort + " is not within 1-65535");
        }
    }

    /** Looked up on first use: a logger made when picocli builds the command would fix the log level before {@code --log-level} applies. */
    private static Logger log() {
        return LoggerFactory.getLogger(ExposedService.class);
    }

    @Override
    public String kind() {
        return "expose";
    }

    @Override
    public String describe() {
        return "exposing 127.0.0.1:" + localPort + " as " + name + ":" + virtualPort;
    }

    /**
     * Registers the name on {@code node} and starts accepting.
     *
     * @param ownsNode whether closing the returned pipe closes the node too
     * @throws IOException if the name cannot be registered (another node holds it, no hub link)
     */
    public RunningPipe<TraverseServerSocket> start(Traverse node, PipeCounters counters, boolean ownsNode)
            throws IOException {
        TraverseServerSocket server = node.serverSocketFactory().createServerSocket(name, virtualPort);
        RunningPipe<TraverseServerSocket> exposure = new RunningPipe<>(node, server, counters, ownsNode);
        Thread acceptor = new Thread(() -> acceptLoop(exposure), "traverse-expose-" + service);
        acceptor.setDaemon(true);
        acceptor.start();
        return exposure;
    }

    private void acceptLoop(RunningPipe<TraverseServerSocket> exposure) {
        InetSocketAddress local = new InetSocketAddress("127.0.0.1", localPort);
        while (!exposure.listener().isClosed()) {
            Socket remote;
            try {
                remote = exposure.listener().accept();
            } catch (IOException e) {
                if (!exposure.listener().isClosed()) {
                    log().warn("Accepting on {} failed: {}", name, e.toString());
                    exposure.pauseAfterAcceptError();
                }
                continue;
            }
            exposure.counters().accepted();
            // The local connect may take a while (a stalled service): not on the accept thread.
            Thread connector = new Thread(
                    () -> {
                        Socket socket = new Socket();
                        try {
                            socket.connect(local, LOCAL_CONNECT_TIMEOUT_MILLIS);
                        } catch (IOException e) {
                            exposure.counters().failed();
                            log().warn(
                                            "Connection from {} to {}: the local service at {} did not answer ({}); resetting it",
                                            remote.getRemoteSocketAddress(),
                                            name,
                                            local,
                                            e.getMessage());
                            SocketPipe.resetQuietly(remote);
                            SocketPipe.closeQuietly(socket);
                            return;
                        }
                        String how = exposure.traverse()
                                .connectionInfo(remote)
                                .map(i -> " by " + i.module())
                                .orElse("");
                        exposure.pipe(
                                remote,
                                socket,
                                "traverse-expose-" + service,
                                "connection to " + name + " from " + remote.getRemoteSocketAddress() + how + " to "
                                        + local);
                    },
                    "traverse-expose-connect");
            connector.setDaemon(true);
            connector.start();
        }
    }
}
