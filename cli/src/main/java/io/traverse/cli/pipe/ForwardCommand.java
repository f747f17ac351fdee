package io.traverse.cli.pipe;

import io.traverse.Traverse;
import io.traverse.cli.LogLevel;
import io.traverse.cli.NodeOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ServerSocket;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code traverse forward}: a local TCP port whose connections go through Traverse to a destination. */
@Command(
        name = "forward",
        mixinStandardHelpOptions = true,
        description = {
            "Listen on a local TCP port and pipe each connection through Traverse to a name or node.",
            "DESTINATION is a name registered with 'traverse expose' or a server socket's name, or a node address; "
                    + "half-close and resets are carried, so programs that are not Java can use Traverse too. Runs "
                    + "until SIGTERM or Ctrl-C."
        })
public final class ForwardCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "LOCAL-PORT", description = "local port to listen on (0 picks a free one)")
    int localPort;

    @Parameters(index = "1", paramLabel = "DESTINATION:PORT", description = "NAME:PORT or a node address NODE:PORT")
    String destination;

    @Option(
            names = "--bind",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description =
                    "address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 lets other machines use the forward)")
    String bind;

    @Mixin
    NodeOptions node = new NodeOptions();

    @Spec
    CommandSpec spec;

    RunningPipe<ServerSocket> start() throws IOException {
        ForwardedService service = ForwardedService.of("forward-" + localPort, localPort, bind, destination);
        // The local port first: a port in use fails at once, before a node and its hub link start.
        ServerSocket listener = service.listen();
        Traverse traverse;
        try {
            traverse = node.start();
        } catch (IOException | RuntimeException e) {
            listener.close();
            throw e;
        }
        return service.start(traverse, listener, PipeCounters.NONE, true);
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
