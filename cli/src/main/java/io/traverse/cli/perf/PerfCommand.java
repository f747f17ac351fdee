package io.traverse.cli.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.VirtualSocketAddress;
import io.traverse.cli.LogLevel;
import io.traverse.cli.NodeOptions;
import io.traverse.cli.TextColumns;
import io.traverse.identity.NodeIdentity;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code traverse perf TARGET}: setup, round trips and throughput to a perf server, per module and for plain TCP. */
@Command(
        name = "perf",
        mixinStandardHelpOptions = true,
        subcommands = PerfServeCommand.class,
        description = {
            "Measure the path to a 'traverse perf serve' on another site, per module, as iperf does for plain TCP.",
            "TARGET is the server's registered name or node address (tv1-...). Every module of this node is tried on its own,"
                    + " as 'traverse diagnose' does: a fresh node with only that module connects (first setup), uploads BYTES,"
                    + " connects again (cached setup), downloads BYTES, and times round trips on a third connection; every"
                    + " byte is checked by SHA-256. Plain TCP to the server's addresses is measured the same way where it"
                    + " gets through. Progress goes to stderr, the table (or --json) to stdout."
        })
public final class PerfCommand implements Callable<Integer> {
    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "TARGET",
            description = "the server's NAME or node address tv1-...")
    String target;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "" + PerfPorts.DEFAULT_BASE,
            description = "the server's first port (default: ${DEFAULT-VALUE})")
    int port;

    @Option(
            names = "--bytes",
            paramLabel = "BYTES",
            defaultValue = "16777216",
            description = "bytes each way per module (default: ${DEFAULT-VALUE}, 16 MiB)")
    long bytes;

    @Option(
            names = "--pings",
            paramLabel = "N",
            defaultValue = "1000",
            description = "round trips timed (default: ${DEFAULT-VALUE})")
    int pings;

    @Option(
            names = "--timeout",
            paramLabel = "DURATION",
            defaultValue = "10s",
            description = "connect timeout per connection (default: ${DEFAULT-VALUE})",
            converter = io.traverse.cli.DurationConverter.class)
    Duration timeout;

    @Option(names = "--json", description = "print the results as JSON (one object) instead of a table")
    boolean json;

    @Mixin
    NodeOptions node = new NodeOptions();

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        LogLevel.defaultTo("warn");
        if (target == null) { // optional only so that 'perf serve' is not asked for one
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "Missing required parameter: 'TARGET'");
        }
        PerfPorts ports = PerfPorts.from(port, spec);
        if (bytes < 1 || pings < 1) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(), "--bytes and --pings must be at least 1");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        PathMeter meter = new PathMeter(ports, bytes, pings, step -> {
            err.println("perf: " + step);
            err.flush();
        });
        List<String> modules;
        Optional<NodeIdentity> server;
        try (Traverse probe = node.start()) {
            modules = probe.modules();
            probe.awaitHubLink(probe.config().hubTimeout());
            server = identityOf(probe);
        }
        List<PathResult> results = new ArrayList<>();
        for (String module : modules) {
            TraverseConfig config =
                    node.configBuilder().modules(module).connectTimeout(timeout).build();
            Traverse alone;
            try {
                alone = Traverse.start(config);
            } catch (IOException | RuntimeException e) {
                results.add(PathResult.failed(
                        module, "could not start a node with only this module: " + PathMeter.firstLine(e)));
                continue;
            }
            try {
                alone.awaitHubLink(config.hubTimeout());
                PathResult r = meter.measure(module, p -> {
                    Socket s = alone.socketFactory().createSocket(target, p);
                    String made = alone.connectionInfo(s).map(i -> i.module()).orElse(module);
                    if (!made.equals(module)) {
                        s.close();
                        throw new IOException("made by module " + made);
                    }
                    return s;
                });
                results.add(r);
            } finally {
                try {
                    alone.close();
                } catch (IOException e) {
                    err.println("perf: closing the node of module " + module + " failed: " + PathMeter.firstLine(e));
                }
            }
        }
        Optional<InetSocketAddress> plain = server.flatMap(id -> plainReach(id, ports));
        if (plain.isPresent()) {
            InetSocketAddress a = plain.get();
            results.add(meter.measure("plain", p -> {
                Socket s = new Socket();
                s.connect(new InetSocketAddress(a.getAddress(), p), (int) timeout.toMillis());
                return s;
            }));
        }
        if (json) {
            Map<String, Object> report = new LinkedHashMap<>();
            report.put("target", target);
            report.put("bytes", bytes);
            report.put("pings", pings);
            report.put(
                    "plain",
                    plain.map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
                            .orElse(null));
            report.put("results", results);
            out.println(new ObjectMapper()
                    .enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValueAsString(report));
        } else {
            TextColumns table = new TextColumns(
                    "module", "first setup", "cached setup", "rtt p50", "rtt p99", "up", "down", "verified", "result");
            for (PathResult r : results) {
                table.add(
                        r.module(),
                        r.ok() ? ms(r.firstSetupMs()) : "-",
                        r.ok() ? ms(r.cachedSetupMs()) : "-",
                        r.ok() ? us(r.rttP50Us()) : "-",
                        r.ok() ? us(r.rttP99Us()) : "-",
                        r.ok() ? mbps(r.upMBps()) : "-",
                        r.ok() ? mbps(r.downMBps()) : "-",
                        r.ok() ? (r.bytesVerified() >> 20) + " MiB sha256 ok" : "-",
                        r.ok() ? "ok" : r.error());
            }
            out.print(table.render(""));
            if (plain.isEmpty()) {
                out.println("plain TCP: "
                        + (server.isEmpty()
                                ? "not tried (the target's addresses are not known)"
                                : "does not get through to the server's addresses on port " + ports.upload()));
            }
        }
        out.flush();
        return results.stream().anyMatch(r -> r.ok() && !r.module().equals("plain")) ? 0 : 1;
    }

    /** The server's identity: from its node address, or from the hub network for a name. */
    private Optional<NodeIdentity> identityOf(Traverse probe) {
        if (NodeIdentity.looksLikeIdentity(target)) {
            try {
                return Optional.of(NodeIdentity.parse(target));
            } catch (IllegalArgumentException e) {
                return Optional.empty();
            }
        }
        try {
            return probe.hubDirectory()
                    .resolveName(target)
                    .get(10, TimeUnit.SECONDS)
                    .map(VirtualSocketAddress::node);
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** The first of the server's addresses where plain TCP reaches its upload port within 2 s. */
    private static Optional<InetSocketAddress> plainReach(NodeIdentity server, PerfPorts ports) {
        for (InetSocketAddress a : server.directAddresses()) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(a.getAddress(), ports.upload()), 2_000);
                return Optional.of(new InetSocketAddress(a.getAddress(), ports.upload()));
            } catch (IOException e) {
                // next address
            }
        }
        return Optional.empty();
    }

    private static String ms(double v) {
        return String.format(Locale.ROOT, "%.1f ms", v);
    }

    private static String us(double v) {
        return v >= 10_000 ? String.format(Locale.ROOT, "%.1f ms", v / 1e3) : String.format(Locale.ROOT, "%.0f us", v);
    }

    private static String mbps(double v) {
        return String.format(Locale.ROOT, "%.1f MB/s", v);
    }
}
