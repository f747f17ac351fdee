package io.traverse.cli.demo;

import io.traverse.VirtualSocketAddress;
import io.traverse.identity.NodeIdentity;
import io.traverse.testbed.Firewall;
import io.traverse.testbed.Host;
import io.traverse.testbed.HostCapabilities;
import io.traverse.testbed.HubAgent;
import io.traverse.testbed.NatMode;
import io.traverse.testbed.NatRouter;
import io.traverse.testbed.NodeSettings;
import io.traverse.testbed.PortMappingGateway;
import io.traverse.testbed.RoundTripResult;
import io.traverse.testbed.RunningNode;
import io.traverse.testbed.Site;
import io.traverse.testbed.Testbed;
import io.traverse.testbed.TestbedException;
import io.traverse.testbed.TransferResult;
import java.io.File;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The demo's real network, where the machine allows it (root, {@code ip}, {@code nft}): sites in
 * Linux network namespaces behind real netfilter NAT, built with the {@code testbed} module, and a
 * node in a JVM of its own at each site. Two sites' routers masquerade keeping source ports, one
 * rejecting what comes in and one dropping it: their nodes can dial neither each other nor back,
 * so they splice (paper §3.3.3). With miniupnpd installed, a third site's router grants port
 * mappings (UPnP IGD, PCP, NAT-PMP): its node, started with {@code traverse.portmap=true},
 * advertises the mapped port and is reached through it directly, and dials the others back
 * through it. The hub runs on the testbed's internet.
 *
 * <p>Every namespace is removed on {@link #close()}, and by the testbed's shutdown hook if the
 * demo is interrupted (Ctrl-C).
 */
final class RealNetworkDemo implements AutoCloseable {
    static final String TOKEN = "traverse-demo-real";
    private static final int HUB_PORT = 17000;
    /** Bytes per transfer at most: node agents generate and hash them, which costs more than the network. */
    private static final long MAX_TRANSFER_BYTES = 16L << 20;

    private static final int MAX_PINGS = 500;
    private static final Duration NETWORK_WAIT = Duration.ofSeconds(15);
    private static final Duration MAPPED_WITHIN = Duration.ofSeconds(10);
    /** The nodes' connect timeout (their default is 30 s): every pair here connects within a second or fails. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How long the background upgrade probe after a routed first connection may take to find splice. */
    private static final Duration UPGRADE_WITHIN = Duration.ofSeconds(5);

    /** One site of the real network, with its one node: how its router treats traffic. */
    record RealNode(String name, String site, String lan, NatMode nat, Firewall firewall, boolean portMapping) {
        String describeRouter() {
            String nat = switch (this.nat) {
                case MASQUERADE -> "NAT keeping ports";
                case MASQUERADE_RANDOM -> "NAT randomising ports";
                case NONE -> "no NAT";
            };
            String inbound = switch (firewall.inbound()) {
                case ACCEPT -> "no firewall";
                case DROP -> "drops inbound";
                case REJECT -> "rejects inbound";
            };
            return nat + ", " + inbound + (portMapping ? ", miniupnpd grants mappings" : "");
        }

        /** True if a node elsewhere can open a connection to this one: only through a mapped port here. */
        boolean reachable() {
            return portMapping || (nat == NatMode.NONE && firewall.inbound() == Firewall.Inbound.ACCEPT);
        }
    }

    static final RealNode KAPPA =
            new RealNode("kappa", "site K", "10.0.1.0/24", NatMode.MASQUERADE, Firewall.rejectInbound(), false);
    static final RealNode LAMBDA =
            new RealNode("lambda", "site L", "10.0.2.0/24", NatMode.MASQUERADE, Firewall.dropInbound(), false);
    static final RealNode MU = new RealNode("mu", "site M", "10.0.3.0/24", NatMode.MASQUERADE, Firewall.open(), true);

    private final Testbed testbed;
    /** Starts the agent JVMs side by side (the common pool may have one thread on a small machine). */
    private final ExecutorService starter = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "demo-real-network-start");
        t.setDaemon(true);
        return t;
    });

    private final int pings;
    private final long transferBytes;

    private RealNetworkDemo(Testbed testbed, int pings, long transferBytes) {
        this.testbed = testbed;
        this.pings = Math.min(pings, MAX_PINGS);
        this.transferBytes = Math.min(transferBytes, MAX_TRANSFER_BYTES);
    }

    /** Why this machine cannot run the real network, or empty if it can. */
    static Optional<String> missing() {
        return HostCapabilities.probe().problem();
    }

    /** Why the port-mapping site cannot run here, or empty if it can. */
    static Optional<String> portMappingMissing() {
        try {
            PortMappingGateway.daemonPath();
            return Optional.empty();
        } catch (TestbedException e) {
            return Optional.of(e.getMessage());
        }
    }

    /** The sites: the spliced pair, and the port-mapping site if miniupnpd is installed. */
    static List<RealNode> topology(boolean portMapping) {
        return portMapping ? List.of(KAPPA, LAMBDA, MU) : List.of(KAPPA, LAMBDA);
    }

    /**
     * What the topology predicts, in the modules' racing order: direct when the target is
     * reachable (here: through its mapped port), reverse when the source is, splice when both are
     * behind NATs that keep ports, routed through the hub otherwise.
     */
    static PairResult.Expectation expectation(RealNode from, RealNode to) {
        if (to.reachable()) {
            return PairResult.Expectation.DIRECT;
        }
        if (from.reachable()) {
            return PairResult.Expectation.REVERSE;
        }
        if (from.nat() == NatMode.MASQUERADE && to.nat() == NatMode.MASQUERADE) {
            return PairResult.Expectation.SPLICE;
        }
        return PairResult.Expectation.ROUTED;
    }

    /** Starts a testbed for the demo; close it (the returned object) whatever happens. */
    static RealNetworkDemo open(int pings, long transferBytes) {
        return new RealNetworkDemo(Testbed.create(), pings, transferBytes);
    }

    /**
     * Builds the network, starts the hub and the nodes, prints what it built and connects every
     * ordered pair; returns the pairs' results.
     */
    List<PairResult> run(List<RealNode> topology, PrintStream out) {
        long start = System.nanoTime();
        // The agents run from this JVM's class path (the shaded jar, or the release archive's lib/), made absolute.
        String classPath = String.join(
                File.pathSeparator,
                Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                        .map(entry -> Path.of(entry).toAbsolutePath().toString())
                        .toList());
        // A hub per site, as in the loopback demo: the chain caches what worked per target hub, so
        // each site's nodes get a cache entry of their own.
        Map<RealNode, Host> hubHosts = new LinkedHashMap<>();
        for (RealNode spec : topology) {
            hubHosts.put(spec, testbed.internet().host("hub-" + spec.name()));
        }
        List<String> hubAddresses = hubHosts.values().stream()
                .map(h -> h.address().getHostAddress() + ":" + HUB_PORT)
                .toList();
        Map<RealNode, CompletableFuture<String>> hubs = new LinkedHashMap<>();
        for (Map.Entry<RealNode, Host> e : hubHosts.entrySet()) {
            String self = e.getValue().address().getHostAddress() + ":" + HUB_PORT;
            List<String> peers =
                    hubAddresses.stream().filter(a -> !a.equals(self)).toList();
            hubs.put(
                    e.getKey(),
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return HubAgent.startOn(
                                            e.getValue(),
                                            HUB_PORT,
                                            TOKEN,
                                            "demo-" + e.getKey().name(),
                                            List.of(self),
                                            peers);
                                } catch (Exception failure) {
                                    throw new CompletionException(failure);
                                }
                            },
                            starter));
        }
        Map<RealNode, Site> sites = new LinkedHashMap<>();
        Map<RealNode, Host> hosts = new LinkedHashMap<>();
        PortMappingGateway gateway = null;
        for (RealNode spec : topology) {
            Site site = testbed.site(spec.name(), spec.lan());
            site.router().nat(spec.nat()).firewall(spec.firewall());
            sites.put(spec, site);
            hosts.put(spec, site.host("node"));
            if (spec.portMapping()) {
                gateway = PortMappingGateway.start(site);
            }
        }
        if (gateway != null) {
            // Every other site's router reaches the gateway's mapping address (which exists only in the testbed).
            for (Site site : sites.values()) {
                if (site != gateway.site()) {
                    site.router()
                            .namespace()
                            .ip("route", "add", PortMappingGateway.EXTERNAL_NETWORK, "dev", NatRouter.WAN);
                }
            }
        }
        Map<RealNode, CompletableFuture<RunningNode>> starting = new LinkedHashMap<>();
        for (RealNode spec : topology) {
            Host host = hosts.get(spec);
            // Started beside its hub, not after it: the node links once the hub listens.
            String hubAddress = hubHosts.get(spec).address().getHostAddress() + ":" + HUB_PORT;
            // Default settings otherwise: the real network shows what a user gets.
            NodeSettings settings = NodeSettings.linkedTo(hubAddress, TOKEN)
                    .bind(host.address())
                    .classPath(classPath);
            if (spec.portMapping()) {
                settings.set("traverse.portmap", "true");
            }
            starting.put(spec, CompletableFuture.supplyAsync(() -> RunningNode.start(host, settings), starter));
        }
        hubs.values().forEach(CompletableFuture::join);
        Map<RealNode, RunningNode> nodes = new LinkedHashMap<>();
        for (Map.Entry<RealNode, CompletableFuture<RunningNode>> e : starting.entrySet()) {
            nodes.put(e.getKey(), e.getValue().join());
        }
        for (RunningNode node : nodes.values()) {
            String network = node.awaitNetwork(nodes.size(), hubs.size(), NETWORK_WAIT);
            if (!network.startsWith("network ok")) {
                throw new TestbedException("the real network's hub did not learn every node: " + network);
            }
        }
        Map<RealNode, NodeIdentity> identities = new LinkedHashMap<>();
        for (Map.Entry<RealNode, RunningNode> e : nodes.entrySet()) {
            identities.put(
                    e.getKey(),
                    e.getKey().portMapping()
                            ? awaitMapped(e.getValue(), gateway)
                            : e.getValue().address().node());
        }
        printTopology(out, topology, sites, nodes, identities, gateway, start);
        out.println(howMeasured(transferBytes, pings));

        List<PairResult> results = new ArrayList<>();
        for (RealNode from : topology) {
            for (RealNode to : topology) {
                if (from != to) {
                    results.add(probe(from, nodes.get(from), to, nodes.get(to), identities.get(to)));
                }
            }
        }
        return results;
    }

    /** Until the node advertises a port miniupnpd mapped for it (it asks as it starts). */
    private static NodeIdentity awaitMapped(RunningNode node, PortMappingGateway gateway) {
        long giveUp = System.nanoTime() + MAPPED_WITHIN.toNanos();
        while (true) {
            NodeIdentity identity = node.identity();
            if (!identity.externals().isEmpty()) {
                return identity;
            }
            if (System.nanoTime() > giveUp) {
                throw new TestbedException(
                        "the node behind miniupnpd advertised no mapped port within " + MAPPED_WITHIN.toSeconds()
                                + " s; node log:\n" + node.recentLog() + "\nminiupnpd log:\n" + gateway.log());
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TestbedException("interrupted while waiting for the mapped port", e);
            }
        }
    }

    /**
     * First connection (its module and setup), a second (cached setup, throughput), both with
     * random data whose length and SHA-256 the target checks, then one-byte round trips.
     */
    private PairResult probe(
            RealNode from, RunningNode source, RealNode to, RunningNode target, NodeIdentity targetIdentity) {
        PairResult.Expectation expected = expectation(from, to);
        VirtualSocketAddress service =
                new VirtualSocketAddress(targetIdentity, target.address().getPort());
        VirtualSocketAddress echo =
                new VirtualSocketAddress(targetIdentity, target.echoAddress().getPort());
        TransferResult first = source.connect(service, transferBytes, CONNECT_TIMEOUT);
        if (first.ok()
                && expected == PairResult.Expectation.SPLICE
                && first.module().equals("routed")) {
            // A first splice mostly loses its race to routed, which starts beside it and needs fewer round trips;
            // splice, left running, or the upgrade probe that follows then caches splice for the next one.
            awaitUpgrade(source, "splice");
        }
        if (!first.ok() || !first.servedBy().equals(target.nodeId())) {
            return failed(from, to, expected, first);
        }
        TransferResult second = source.connect(service, transferBytes, CONNECT_TIMEOUT);
        if (!second.ok() || !second.servedBy().equals(target.nodeId())) {
            return failed(from, to, expected, second);
        }
        RoundTripResult rtt = source.roundTrips(echo, pings, CONNECT_TIMEOUT);
        if (!rtt.ok()) {
            return PairResult.failed(from.name(), to.name(), expected, "round trips: " + rtt.error(), false);
        }
        // The first connection's module, and the next one's if it differs: "routed>splice" is a pair the upgrade probe
        // moved on.
        String module =
                first.module().equals(second.module()) ? first.module() : first.module() + ">" + second.module();
        double seconds = Math.max(1, second.elapsedMillis()) / 1e3;
        return new PairResult(
                from.name(),
                to.name(),
                expected,
                true,
                module,
                Duration.ofNanos(first.setupMicros() * 1000),
                Duration.ofNanos(second.setupMicros() * 1000),
                Duration.ofNanos(rtt.medianNanos()),
                second.bytes() / seconds / 1e6,
                first.bytes(),
                null);
    }

    /** Until the node's background probe reports that {@code module} now reaches a hub, or a few seconds passed. */
    private static void awaitUpgrade(RunningNode node, String module) {
        String probed = "Upgrade probe: module " + module + " now reaches";
        String leftRunning = "Module " + module + " reaches "; // it got through after the relay had won
        long giveUp = System.nanoTime() + UPGRADE_WITHIN.toNanos();
        while (!node.recentLog().contains(probed)
                && !node.recentLog().contains(leftRunning)
                && System.nanoTime() < giveUp) {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TestbedException("interrupted while waiting for an upgrade probe", e);
            }
        }
    }

    private static PairResult failed(
            RealNode from, RealNode to, PairResult.Expectation expected, TransferResult result) {
        String why = result.ok() ? "served by " + result.servedBy() + ", not " + to.name() : result.error();
        return PairResult.failed(from.name(), to.name(), expected, why, why.contains("Timeout"));
    }

    private static void printTopology(
            PrintStream out,
            List<RealNode> topology,
            Map<RealNode, Site> sites,
            Map<RealNode, RunningNode> nodes,
            Map<RealNode, NodeIdentity> identities,
            PortMappingGateway gateway,
            long start) {
        out.println();
        out.printf(
                Locale.ROOT,
                "Real network: %d sites in network namespaces behind real NAT (nftables), a node JVM with default"
                        + " settings at each, a hub per site on the testbed's internet (198.18.0.0/15); built in %.1f s%n",
                topology.size(),
                (System.nanoTime() - start) / 1e9);
        String format = "%-8s %-7s %-22s %-70s %s%n";
        out.printf(
                Locale.ROOT,
                format,
                "node",
                "site",
                "listens on",
                "router (public address " + "and policy)",
                "node id");
        for (RealNode spec : topology) {
            InetSocketAddress listening = identities.get(spec).addresses().get(0);
            Site site = sites.get(spec);
            out.printf(
                    Locale.ROOT,
                    format,
                    spec.name(),
                    spec.site(),
                    listening.getAddress().getHostAddress() + ":" + listening.getPort(),
                    site.router().publicAddress().getHostAddress() + ": " + spec.describeRouter(),
                    nodes.get(spec).nodeId());
        }
        List<String> spliced = topology.stream()
                .filter(n -> !n.reachable() && n.nat() == NatMode.MASQUERADE)
                .map(RealNode::name)
                .toList();
        if (spliced.size() > 1) {
            out.println(String.join(" and ", spliced)
                    + " can dial neither each other nor back: each sends SYNs from a port whose public"
                    + " side the hub echoed, at an agreed instant, and the SYNs cross in flight (splice)");
        }
        if (gateway != null) {
            for (RealNode spec : topology) {
                if (spec.portMapping()) {
                    InetSocketAddress external =
                            identities.get(spec).externals().get(0);
                    out.println(spec.name() + " (traverse.portmap=true) asked miniupnpd for a mapping and advertises "
                            + external.getAddress().getHostAddress() + ":" + external.getPort()
                            + "; miniupnpd's rules: "
                            + String.join(
                                    ", ",
                                    gateway.mappings().stream()
                                            .map(m -> m.externalPort() + " -> "
                                                    + m.internalAddress().getHostAddress() + ":" + m.internalPort())
                                            .toList()));
                    out.println("  the only way into " + spec.site() + ": the others connect to " + spec.name()
                            + " directly through" + " it, and " + spec.name() + " is dialled back through it");
                }
            }
        }
    }

    /** How the real network's rows were measured (they come from node agents, not from this JVM). */
    static String howMeasured(long transferBytes, int pings) {
        return "  its rows below: first and cached setup of two connections from node JVMs whose hub links are up, each sending "
                + Math.min(transferBytes, MAX_TRANSFER_BYTES) / (1024 * 1024)
                + " MiB of random data whose length and SHA-256 the"
                + " target checks (throughput: the second, setup and hashing included), median of "
                + Math.min(pings, MAX_PINGS)
                + " one-byte round trips; \"routed>splice\": the first splice lost its race to routed (which starts beside it"
                + " and needs fewer round trips), and splice, cached once it got through, made the next connection";
    }

    @Override
    public void close() {
        starter.shutdownNow();
        testbed.close();
    }
}
