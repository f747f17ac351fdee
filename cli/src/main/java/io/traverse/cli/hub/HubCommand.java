package io.traverse.cli.hub;

import io.traverse.cli.LogLevel;
import io.traverse.cli.TokenOptions;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code traverse hub}: runs a hub until SIGTERM or Ctrl-C, then closes it cleanly. */
@Command(
        name = "hub",
        mixinStandardHelpOptions = true,
        description = {
            "Run a hub: links to nodes and hubs, gossip, routes, names and relays.",
            "Accepts node and hub links, dials the peers and every hub learned of, routes side messages and keeps the "
                    + "name registry. Runs until SIGTERM or Ctrl-C. Options override the --config file. The token comes "
                    + "from --token, --token-file, the file, or the TRAVERSE_TOKEN environment variable, in that order."
        })
public final class HubCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--bind",
            paramLabel = "ADDRESS",
            description = "address to listen on (default: 0.0.0.0, every interface)")
    String bind;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            description = "hub link port (default: " + HubConfig.DEFAULT_PORT + ")")
    Integer port;

    @Option(
            names = "--name",
            paramLabel = "NAME",
            description =
                    "hub name, unique in the network (default: shown as <hostname>:<port>); the hub id is its key's,"
                            + " kept in --state-dir")
    String name;

    @Option(
            names = "--state-dir",
            paramLabel = "DIR",
            description =
                    "where the hub keeps its key, in hub-<name>.key or hub-<port>.key, locked while it runs (default:"
                            + " $XDG_STATE_HOME/traverse,"
                            + " else ~/.local/state/traverse)")
    Path stateDir;

    @Option(
            names = "--key-file",
            paramLabel = "FILE",
            description = "the file that keeps the hub's key, and with it its id (default: one in --state-dir);"
                    + " created with a new key, readable by the owner only, if absent")
    Path keyFile;

    @Option(names = "--peer", paramLabel = "HOST:PORT", description = "a hub to dial (repeatable; port default 17000)")
    List<String> peers = List.of();

    @Option(
            names = "--ssh-tunnel",
            paramLabel = "RULE",
            description = "peer hubs in NETWORK are dialled through an sshd (repeatable): 'NETWORK user=NAME key=FILE"
                    + " [gateway=HOST[:PORT]] [port=PORT] [passphrase=TEXT] [known-hosts=FILE]', host keys checked strictly"
                    + " (docs/operations.md, \"SSH tunnels\")")
    List<String> sshTunnels = List.of();

    @Option(
            names = "--advertise",
            paramLabel = "HOST:PORT",
            split = ",",
            description = "address other hubs should dial this hub at (repeatable; default: the interface addresses"
                    + " of --bind; 'none': nobody dials this hub, it only dials out)")
    List<String> advertise;

    @Mixin
    TokenOptions tokens = new TokenOptions();

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "properties file with traverse.hub.* keys (docs/operations.md)")
    Path config;

    @Option(
            names = "--http-port",
            paramLabel = "PORT",
            description = "HTTP port for /metrics (Prometheus), /status (JSON) and / (the live dashboard) (default: "
                    + HubConfig.DEFAULT_HTTP_PORT + "; 0 picks a free one; negative disables)")
    Integer httpPort;

    @Option(
            names = "--discovery-port",
            paramLabel = "PORT",
            description = "UDP port on which to answer nodes looking for a hub (default: "
                    + HubConfig.DEFAULT_DISCOVERY_PORT + ", the nodes' traverse.discovery.port; negative disables)")
    Integer discoveryPort;

    /** Builds the configuration from options, file and environment. */
    HubConfig hubConfig(Map<String, String> environment) throws Exception {
        HubSettings file = config == null ? HubSettings.none() : HubSettings.read(config);
        // The daemon answers discovery unless told otherwise; the library's builder does not.
        HubConfig.Builder builder = HubConfig.builder()
                .discoveryPort(HubConfig.DEFAULT_DISCOVERY_PORT)
                .stateDirectory(HubConfig.defaultStateDirectory(environment, System.getProperty("user.home")));
        file.applyTo(builder);
        if (bind != null) {
            builder.bindAddress(bind);
        }
        if (port != null) {
            builder.port(port);
        }
        if (name != null) {
            builder.name(name);
        }
        if (stateDir != null) {
            builder.stateDirectory(stateDir);
        }
        if (keyFile != null) {
            builder.keyFile(keyFile);
        }
        builder.peers(peers);
        sshTunnels.forEach(builder::sshTunnel);
        if (advertise != null) {
            builder.advertisedAddresses(HubSettings.advertised(advertise));
        }
        if (httpPort != null) {
            builder.httpPort(httpPort);
        }
        if (discoveryPort != null) {
            builder.discoveryPort(discoveryPort);
        }
        builder.token(file.token(tokens.token(), tokens.tokenFile(), environment));
        return builder.build();
    }

    @Override
    public Integer call() throws Exception {
        LogLevel.defaultTo("info");
        HubConfig hubConfig;
        try {
            hubConfig = hubConfig(System.getenv());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        // The hook goes in before the hub starts: a SIGTERM right after "listening on" must still close it cleanly.
        java.util.concurrent.atomic.AtomicReference<Hub> started = new java.util.concurrent.atomic.AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        CountDownLatch ready = new CountDownLatch(1);
        Thread closer = new Thread(
                () -> {
                    try {
                        ready.await(30, java.util.concurrent.TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    Hub hub = started.get();
                    if (hub != null) {
                        hub.close();
                    }
                    stopped.countDown();
                },
                "traverse-hub-shutdown");
        Runtime.getRuntime().addShutdownHook(closer);
        try {
            started.set(Hub.start(hubConfig));
        } catch (java.io.IOException e) {
            // The message says it all (a port in use, a key file to fix): one line, no stack trace.
            spec.commandLine().getErr().println("traverse hub: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 1;
        } finally {
            ready.countDown();
        }
        // Runs until the JVM is told to stop; the hook closes the hub and then lets main return.
        stopped.await();
        return 0;
    }
}
