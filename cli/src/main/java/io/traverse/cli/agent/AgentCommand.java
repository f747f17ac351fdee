package io.traverse.cli.agent;

import io.traverse.cli.LogLevel;
import io.traverse.cli.TokenFile;
import io.traverse.cli.pipe.HubLinkReadiness;
import io.traverse.cli.pipe.PipeService;
import io.traverse.cli.pipe.RunningPipe;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code traverse agent}: any number of exposes and forwards from one file, on one node, in one JVM. */
@Command(
        name = "agent",
        mixinStandardHelpOptions = true,
        description = {
            "Run the exposes and forwards of a file on one node in one process; SIGHUP reloads the file.",
            "FILE holds node settings (KEY = VALUE: token-file or any traverse.* key) and one service a line: "
                    + "'expose SERVICE LOCAL-PORT [name=NAME] [port=PORT]' or "
                    + "'forward SERVICE LOCAL-PORT DESTINATION:PORT [bind=ADDRESS]' (docs/operations.md, "
                    + "\"One agent, many services\"). Runs until SIGTERM or Ctrl-C."
        })
public final class AgentCommand implements Callable<Integer> {
    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the agent file")
    Path config;

    @Option(
            names = "--metrics-port",
            paramLabel = "PORT",
            description =
                    "serve per-service counters in Prometheus format at http://ADDRESS:PORT/metrics (default: off)")
    Integer metricsPort;

    @Option(
            names = "--metrics-bind",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description =
                    "address the metrics endpoint listens on (default: ${DEFAULT-VALUE}; 0.0.0.0 for a Prometheus elsewhere)")
    String metricsBind;

    @Option(
            names = "--token-file",
            paramLabel = "FILE",
            description =
                    "file whose first line is the network token, for a FILE without token-file (its token-file wins); "
                            + "with systemd: LoadCredential=token:/etc/traverse/token and --token-file %d/token")
    Path tokenFile;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        LogLevel.defaultTo("info");
        AgentFile file = AgentFile.read(config);
        AgentMetrics metrics = metricsPort == null ? null : new AgentMetrics();
        // The metrics port before the node: a port in use fails at once.
        MetricsEndpoint endpoint = metrics == null ? null : MetricsEndpoint.start(metricsBind, metricsPort, metrics);
        Agent agent;
        try {
            agent = Agent.start(file, file.nodeConfig(commandLineToken(), "--token-file " + tokenFile), metrics);
        } catch (Exception e) {
            if (endpoint != null) {
                endpoint.close();
            }
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            if (endpoint != null) {
                                endpoint.close();
                            }
                            agent.close();
                            stopped.countDown();
                        },
                        "traverse-agent-shutdown"));
        PrintWriter out = spec.commandLine().getOut();
        String link = HubLinkReadiness.await(agent.node(), HubLinkReadiness.WAIT);
        for (Map.Entry<String, RunningPipe<?>> service : agent.services().entrySet()) {
            PipeService configured = file.services().stream()
                    .map(AgentFile.Entry::service)
                    .filter(s -> s.service().equals(service.getKey()))
                    .findFirst()
                    .orElseThrow();
            out.printf("%s %s: %s%n", configured.kind(), service.getKey(), configured.describe());
        }
        boolean reloads = ReloadSignal.install(agent::reload);
        out.printf(
                "agent: %d services from %s on node %s%s%s%n",
                agent.services().size(),
                config,
                agent.node().identity().id().map(Object::toString).orElse("?"),
                link,
                reloads ? "; SIGHUP reloads the file" : "");
        if (endpoint != null) {
            out.printf("metrics at http://%s:%d/metrics%n", metricsBind, endpoint.port());
        }
        out.flush();
        stopped.await();
        return 0;
    }

    private String commandLineToken() throws IOException {
        if (tokenFile == null) {
            return null;
        }
        try {
            return TokenFile.read(tokenFile);
        } catch (IOException e) {
            throw new IOException("--token-file " + tokenFile + " cannot be read (" + e + ")", e);
        }
    }
}
