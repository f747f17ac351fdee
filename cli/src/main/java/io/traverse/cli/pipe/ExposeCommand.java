package io.traverse.cli.pipe;

import io.traverse.Traverse;
import io.traverse.TraverseServerSocket;
import io.traverse.cli.LogLevel;
import io.traverse.cli.NodeOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code traverse expose}: a local TCP service reachable through the hub network under a name. */
@Command(
        name = "expose",
        mixinStandardHelpOptions = true,
        description = {
            "Make a TCP service on this machine reachable through the hub network under a name.",
            "Each connection to NAME:PORT is piped to 127.0.0.1:LOCAL-PORT, half-close and resets included. Runs "
                    + "until SIGTERM or Ctrl-C. Clients connect with the Traverse socket factory, or with "
                    + "'traverse forward' on their machine."
        })
public final class ExposeCommand implements Callable<Integer> {
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
        ExposedService service =
                new ExposedService(name, localPort, name, virtualPort == null ? localPort : virtualPort);
        Traverse traverse = node.start();
        try {
            return service.start(traverse, PipeCounters.NONE, true);
        } catch (IOException | RuntimeException e) {
            traverse.close();
            throw e;
        }
    }

    @Override
    public Integer call() throws Exception {
        LogLevel.defaultTo("info");
        RunningPipe<TraverseServerSocket> exposure = start();
        PrintWriter out = spec.commandLine().getOut();
        out.printf(
                "exposing 127.0.0.1:%d as %s:%d (node %s)%n",
                localPort,
                name,
                exposure.listener().getLocalPort(),
                exposure.traverse().identity().id().map(Object::toString).orElse("?"));
        out.flush();
        exposure.runUntilStopped("traverse-expose-shutdown");
        return 0;
    }
}
