package io.traverse.cli.diagnose;

import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.VirtualSocketAddress;
import io.traverse.cli.LogLevel;
import io.traverse.cli.NodeOptions;
import io.traverse.cli.TextColumns;
import io.traverse.direct.DirectModuleProvider;
import io.traverse.direct.portmap.PortMappingSettings;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code traverse diagnose}: what works to reach a node, module by module, and why the rest does not. */
@Command(
        name = "diagnose",
        mixinStandardHelpOptions = true,
        description = {
            "Try every connection module on its own against a name or node, and say why each failed.",
            "TARGET is a registered name or a node address, with or without :PORT. Prints what works, the time each "
                    + "module took and why the others failed. Without a port, a module that gets an answer from the node "
                    + "(\"nothing listens on virtual port\") counts as reaching it."
        })
public final class DiagnoseCommand implements Callable<Integer> {
    /** Probed when no port is given: an answer that nothing listens there still proves the way. */
    static final int PROBE_PORT = 65535;

    @Parameters(
            index = "0",
            paramLabel = "TARGET",
            description = "NAME, NAME:PORT, a node address tv1-..., or tv1-...:PORT")
    String target;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            defaultValue = "10s",
            description = "per module (default: ${DEFAULT-VALUE})",
            converter = io.traverse.cli.DurationConverter.class)
    Duration timeout;

    @Mixin
    NodeOptions node = new NodeOptions();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        LogLevel.defaultTo("warn");
        PrintWriter out = spec.commandLine().getOut();
        int colon = target.lastIndexOf(':');
        String host = colon < 0 ? target : target.substring(0, colon);
        int port;
        try {
            port = colon < 0 ? PROBE_PORT : Integer.parseInt(target.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "TARGET '" + target + "': '" + target.substring(colon + 1) + "' is not a port");
        }
        if (port < 1 || port > 65535) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "TARGET '" + target + "': port " + port + " is not within 1-65535");
        }
        List<String> modules;
        try (Traverse probe = node.start()) {
            modules = probe.modules();
            boolean linked = probe.awaitHubLink(probe.config().hubTimeout());
            out.println("this node: "
                    + probe.identity().id().map(Object::toString).orElse("?") + ", modules " + modules
                    + ", hub link "
                    + (linked
                            ? probe.hubLinkStatus().hubName() + " "
                                    + probe.hubLinkStatus().hubAddress()
                                    + probe.hubLongPollRoute()
                                            .map(route -> " by a " + route)
                                            .orElse("")
                            : "none ("
                                    + probe.hubLinkStatus().state()
                                    + (probe.hubLinkStatus().lastFailure() == null
                                            ? ""
                                            : ": " + probe.hubLinkStatus().lastFailure())
                                    + ")"));
            out.println("http proxy: "
                    + probe.config()
                            .httpProxy()
                            .map(p -> p + "; "
                                    + probe.hubProxyAnswer()
                                            .orElse("not used for the hub link (the hub is a non-proxy host)"))
                            .orElse("none (traverse.http.proxy, https.proxyHost and http.proxyHost are not set)"));
            out.println("port mapping: " + portMapping(probe));
            out.println("ssh tunnels: "
                    + (probe.config().get(DirectModuleProvider.SSH_TUNNELS).isEmpty()
                            ? "none (traverse.ssh.tunnels is not set)"
                            : probe.config()
                                            .get(DirectModuleProvider.SSH_TUNNELS)
                                            .size()
                                    + " rule(s); the direct module and dial-backs use them for their networks"));
            if (!host.startsWith("tv1-")) {
                if (!linked) {
                    // Every module would fail alike, each after its own wait: say it once.
                    out.println("name " + host + ": cannot be looked up without a hub link; no module was tried");
                    out.flush();
                    return 1;
                }
                Optional<VirtualSocketAddress> resolved =
                        probe.hubDirectory().resolveName(host).get(10, TimeUnit.SECONDS);
                out.println("name " + host + ": "
                        + resolved.map(a -> "node "
                                        + a.node().id().map(Object::toString).orElse("?") + " at hub "
                                        + a.node().hubs())
                                .orElse("not registered in the hub network (is 'traverse expose' running?)"));
                if (resolved.isEmpty()) {
                    out.flush();
                    return 1;
                }
            }
        }
        out.println("target " + host + (colon < 0 ? " (probing virtual port " + PROBE_PORT + ")" : ":" + port)
                + ", each module on its own, " + timeout.toMillis() + " ms each:");
        out.flush();
        // "setup" is the connect itself; "probe" adds starting a node with the one module and its hub link.
        TextColumns table = new TextColumns("module", "result", "setup", "probe", "detail");
        int working = 0;
        int serviceGone = 0;
        long start = System.nanoTime();
        for (String module : modules) {
            TraverseConfig.Builder base = node.configBuilder();
            ModuleProbe probe = ModuleProbe.run(base, module, host, port, timeout, colon >= 0);
            switch (probe.outcome()) {
                case CONNECTED, ANSWERED -> working++;
                case CLOSED_AT_ONCE -> serviceGone++;
                default -> {}
            }
            table.add(module, probe.outcome().text, millis(probe.setup()), millis(probe.total()), probe.detail());
        }
        out.print(table.render("  "));
        String took = " (" + millis(Duration.ofNanos(System.nanoTime() - start)) + " in all)";
        if (working > 0) {
            out.println(working + " of " + modules.size() + " modules reach " + target + took);
        } else if (serviceGone > 0) {
            out.println(serviceGone + " of " + modules.size() + " modules reach the node, but the service behind "
                    + target + " closed every connection at once" + took);
        } else {
            out.println("no module reaches " + target + took);
        }
        out.flush();
        return working == 0 ? 1 : 0;
    }

    /** Whether this node asks its NAT for a mapping, and what it advertises if a gateway granted one. */
    private static String portMapping(Traverse probe) {
        PortMappingSettings portMapping = PortMappingSettings.of(probe.config());
        if (!portMapping.on()) {
            return "off (traverse.portmap=true asks a UPnP IGD, PCP or NAT-PMP gateway to map this node's port)";
        }
        List<java.net.InetSocketAddress> mapped =
                new java.util.ArrayList<>(probe.identity().externals());
        mapped.removeAll(probe.config().externals());
        return mapped.isEmpty()
                ? "on (" + String.join(", ", portMapping.protocols()) + "), but no gateway granted a mapping"
                        + " by the time the hub link was up"
                : "on, advertising " + mapped + " (a port the NAT maps to this node)";
    }

    private static String millis(Duration d) {
        return String.format(Locale.ROOT, "%.1f ms", d.toNanos() / 1e6);
    }
}
