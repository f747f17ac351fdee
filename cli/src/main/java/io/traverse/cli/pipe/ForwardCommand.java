package io.traverse.cli.pipe;

import io.traverse.Traverse;
import io.traverse.cli.LogLevel;
import io.traverse.cli.NodeOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
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

/** {@code traverse forward}: a local TCP port whose connections go through Traverse to a destination. */
@Command(name = "forward", mixinStandardHelpOptions = true,
        description = {"Listen on a local TCP port and pipe each connection through Traverse to a name or node.",
                "DESTINATION is a name registered with 'traverse expose' or a server socket's name, or a node address; "
                        + "half-close and resets are carried, so programs that are not Java can use Traverse too. Runs "
                        + "until SIGTERM or Ctrl-C."})
public final class ForwardCommand implements Callable<Integer> {
    /** Looked up on first use: a logger made when picocli builds the command would fix the log level before {@code --log-level} applies. */
    private static Logger log() {
        return LoggerFactory.getLogger(ForwardCommand.class);
    }

    @Parameters(index = "0", paramLabel = "LOCAL-PORT", description = "local port to listen on (0 picks a free one)")
    int localPort;

    @Parameters(index = "1", paramLabel = "DESTINATION:PORT", description = "NAME:PORT or a node address NODE:PORT")
    String destination;

    @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
            description = "address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 lets other machines use the forward)")
    String bind;

    @Mixin
    NodeOptions node = new NodeOptions();

    @Spec
    CommandSpec spec;

    RunningPipe<ServerSocket> start() throws IOException {
        int colon = destination.lastIndexOf(':');
        if (colon <= 0 || colon == destination.length() - 1) {
            throw new IllegalArgumentException("DESTINATION '" + destination + "' must be NAME:PORT or NODE:PORT");
        }
        String host = destination.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(destination.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("DESTINATION '" + destination + "': '" + destination.substring(colon + 1)
                    + "' is not a port");
        }
        // The local port first: a port in use fails at once, before a node and its hub link start.
        ServerSocket listener;
        try {
            listener = new ServerSocket(localPort, 50, InetAddress.getByName(bind));
        } catch (java.net.BindException e) {
            throw new java.net.BindException("cannot listen on " + bind + ":" + localPort + ": " + e.getMessage()
                    + (String.valueOf(e.getMessage()).contains("in use") ? " (choose another LOCAL-PORT, or 0 for any)" : ""));
        }
        Traverse traverse;
        try {
            traverse = node.start();
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
        RunningPipe<ServerSocket> forward = new RunningPipe<>(traverse, listener);
        Thread acceptor = new Thread(() -> acceptLoop(forward, host, port), "traverse-forward-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
        return forward;
    }

    private void acceptLoop(RunningPipe<ServerSocket> forward, String host, int port) {
        while (!forward.listener().isClosed()) {
            Socket local;
            try {
                local = forward.listener().accept();
            } catch (IOException e) {
                if (!forward.listener().isClosed()) {
                    log().warn("Accepting on port {} failed: {}", forward.listener().getLocalPort(), e.toString());
                    forward.pauseAfterAcceptError();
                }
                continue;
            }
            // Connecting may take a while (a module race): not on the accept thread.
            Thread connector = new Thread(() -> {
                Socket remote;
                try {
                    remote = forward.traverse().socketFactory().createSocket(host, port);
                } catch (IOException e) {
                    log().warn("Connection from {}: could not reach {}: {}; resetting it", local.getRemoteSocketAddress(), destination,
                            e.getMessage());
                    SocketPipe.resetQuietly(local);
                    return;
                }
                String how = forward.traverse().connectionInfo(remote)
                        .map(i -> " by " + i.module() + " (setup " + i.setupTime().toMillis() + " ms)").orElse(" by plain TCP");
                forward.pipe(local, remote, "traverse-forward-" + forward.listener().getLocalPort(),
                        "connection from " + local.getRemoteSocketAddress() + " to " + destination + how);
            }, "traverse-forward-connect");
            connector.setDaemon(true);
            connector.start();
        }
    }

    @Override
    public Integer call() throws Exception {
        LogLevel.defaultTo("info");
        RunningPipe<ServerSocket> forward = start();
        String link;
        try {
            link = HubLinkReadiness.await(forward.traverse(), HubLinkReadiness.WAIT);
        } catch (IOException e) {
            forward.close();
            throw e;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.printf("forwarding %s:%d to %s%s%n", bind, forward.listener().getLocalPort(), destination, link);
        out.flush();
        forward.runUntilStopped("traverse-forward-shutdown");
        return 0;
    }
}
