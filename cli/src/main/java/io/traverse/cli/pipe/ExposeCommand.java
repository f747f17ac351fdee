package io.traverse.cli.pipe;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.cli.LogLevel;
import io.traverse.cli.NodeOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code traverse expose}: a local TCP service reachable through the hub network under a name. */
@Command(name = "expose", mixinStandardHelpOptions = true,
        description = {"Make a TCP service on this machine reachable through the hub network under a name.",
                "Each connection to NAME:PORT is piped to 127.0.0.1:LOCAL-PORT, half-close and resets included. Runs "
                        + "until SIGTERM or Ctrl-C. Clients connect with the Traverse socket factory, or with "
                        + "'traverse forward' on their machine."})
public final class ExposeCommand implements Callable<Integer> {
    /** Looked up on first use: a logger made when picocli builds the command would fix the log level before {@code --log-level} applies. */
    private static Logger log() {
        return LoggerFactory.getLogger(ExposeCommand.class);
    }
    private static final int LOCAL_CONNECT_TIMEOUT_MILLIS = 10_000;

    @Parameters(index = "0", paramLabel = "LOCAL-PORT", description = "port of the service on 127.0.0.1")
    int localPort;

    @Option(names = "--name", required = true, paramLabel = "NAME", description = "name to register (hostname-safe)")
    String name;

    @Option(names = "--port", paramLabel = "PORT", description = "virtual port clients use (default: LOCAL-PORT)")
    Integer virtualPort;

    @Mixin
    NodeOptions node = new NodeOptions();

    @Spec
    CommandSpec spec;

    RunningPipe<TraverseServerSocket> start() throws IOException {
        if (localPort < 1 || localPort > 65535) {
            throw new IllegalArgumentException("LOCAL-PORT " + localPort + " is not within 1-65535");
        }
        int port = virtualPort == null ? localPort : virtualPort;
        Traverse traverse = node.start();
        TraverseServerSocket server;
        try {
            server = traverse.serverSocketFactory().createServerSocket(name, port);
        } catch (IOException | RuntimeException e) {
            traverse.close();
            throw e;
        }
        RunningPipe<TraverseServerSocket> exposure = new RunningPipe<>(traverse, server);
        Thread acceptor = new Thread(() -> acceptLoop(exposure), "traverse-expose-" + name);
        acceptor.setDaemon(true);
        acceptor.start();
        return exposure;
    }

    private void acceptLoop(RunningPipe<TraverseServerSocket> exposure) {
        InetSocketAddress service = new InetSocketAddress("127.0.0.1", localPort);
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
            // The local connect may take a while (a stalled service): not on the accept thread.
            Thread connector = new Thread(() -> {
                Socket local = new Socket();
                try {
                    local.connect(service, LOCAL_CONNECT_TIMEOUT_MILLIS);
                } catch (IOException e) {
                    log().warn("Connection from {} to {}: the local service at {} did not answer ({}); resetting it",
                            remote.getRemoteSocketAddress(), name, service, e.getMessage());
                    SocketPipe.resetQuietly(remote);
                    SocketPipe.closeQuietly(local);
                    return;
                }
                String how = exposure.traverse().connectionInfo(remote).map(i -> " by " + i.module()).orElse("");
                exposure.pipe(remote, local, "traverse-expose-" + name,
                        "connection to " + name + " from " + remote.getRemoteSocketAddress() + how + " to " + service);
            }, "traverse-expose-connect");
            connector.setDaemon(true);
            connector.start();
        }
    }

    @Override
    public Integer call() throws Exception {
        LogLevel.defaultTo("info");
        RunningPipe<TraverseServerSocket> exposure = start();
        PrintWriter out = spec.commandLine().getOut();
        out.printf("exposing 127.0.0.1:%d as %s:%d (node %s)%n", localPort, name, exposure.listener().getLocalPort(),
                exposure.traverse().identity().id().map(Object::toString).orElse("?"));
        out.flush();
        exposure.runUntilStopped("traverse-expose-shutdown");
        return 0;
    }
}
