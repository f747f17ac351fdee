package io.traverse.cli.demo;

import static io.traverse.firewall.FirewallRule.allow;
import static io.traverse.firewall.FirewallRule.deny;
import static io.traverse.firewall.FirewallRule.drop;

import io.traverse.ModuleStatistics;
import io.traverse.Traverse;
import io.traverse.TraverseConfig;
import io.traverse.TraverseServerSocket;
import io.traverse.VirtualSocketAddress;
import io.traverse.firewall.FirewallRule;
import io.traverse.firewall.SimulatedFirewall;
import io.traverse.hub.Hub;
import io.traverse.hub.HubConfig;
import io.traverse.identity.IpLiterals;
import io.traverse.identity.NodeIdentity;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The demo: several nodes in this JVM on loopback, one 127.0.N.0/24 per site, with simulated
 * firewalls, and a hub per site (in this JVM too, linked into one hub network); every node
 * connects to every other and the results are printed. What each pair should do is derived from
 * both nodes' firewall rules — direct when the target lets the source in, reverse when only the
 * source can be dialled, routed through the hubs when neither can — and the exit code says
 * whether reality agreed. Needs no root.
 */
public final class LoopbackDemo {
    static final int SERVICE_PORT = 7000;

    static final List<DemoNode> TOPOLOGY = List.of(
            new DemoNode("alpha", "site A", "127.0.1.1", List.of(), false),
            new DemoNode("beta", "site B", "127.0.2.1", List.of(), false),
            new DemoNode("gamma", "site C", "127.0.3.1", List.of(allow("127.0.3.0/24"), deny("all")), false),
            new DemoNode("delta", "site C", "127.0.3.2", List.of(allow("127.0.3.0/24"), drop("all")), false),
            new DemoNode("epsilon", "site D", "127.0.4.1", List.of(), true),
            new DemoNode("zeta", "site E", "127.0.5.1", List.of(deny("all")), false));
    static final String TOKEN = "traverse-demo";

    private final Duration connectTimeout;
    private final PairProbe probe;

    public LoopbackDemo(Duration connectTimeout, int pings, long countBytes, long verifyBytes) {
        this.connectTimeout = connectTimeout;
        this.probe = new PairProbe(pings, countBytes, verifyBytes);
    }

    /** Runs the demo; returns 0 when every pair behaved as its topology predicts. */
    public int run(PrintStream out) throws IOException {
        long start = System.nanoTime();
        Map<DemoNode, Traverse> nodes = new LinkedHashMap<>();
        Map<DemoNode, VirtualSocketAddress> published = new LinkedHashMap<>();
        ExecutorService serverThreads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "demo-server");
            t.setDaemon(true);
            return t;
        });
        Map<String, Hub> hubs = new LinkedHashMap<>();
        try {
            for (DemoNode spec : TOPOLOGY) {
                Hub hub = hubs.computeIfAbsent(spec.site(), site -> startHub(site, hubs.values()));
                Traverse node = Traverse.start(TraverseConfig.builder().bind(spec.address()).firewall(spec.firewall())
                        .connectTimeout(connectTimeout).token(TOKEN).discovery(false)
                        .hubs(List.of(new InetSocketAddress("127.0.0.1", hub.linkAddress().getPort()))).build());
                nodes.put(spec, node);
                TraverseServerSocket server = node.serverSocketFactory().createServerSocket(SERVICE_PORT);
                new VerificationServer(server, serverThreads).start();
            }
            awaitHubNetwork(nodes.values());
            for (DemoNode spec : TOPOLOGY) {
                published.put(spec, publishedAddress(spec, nodes));
            }
            printTopology(out, nodes, published);

            List<PairResult> results = new ArrayList<>();
            for (DemoNode from : TOPOLOGY) {
                for (DemoNode to : TOPOLOGY) {
                    if (from != to) {
                        results.add(probe.probe(from.name(), nodes.get(from), to.name(), published.get(to),
                                expectation(from, to)));
                    }
                }
            }
            out.println();
            ResultTable.print(out, results);
            return summarize(out, results, nodes, start);
        } finally {
            for (Traverse node : nodes.values()) {
                node.close();
            }
            hubs.values().forEach(Hub::close);
            serverThreads.shutdownNow();
        }
    }

    /** A site's hub on 127.0.0.1, linked to the first one. */
    private static Hub startHub(String site, java.util.Collection<Hub> started) {
        HubConfig.Builder config = HubConfig.builder().bindAddress("127.0.0.1").port(0).httpPort(-1).token(TOKEN)
                .name("demo-" + site.replace(' ', '-'));
        started.stream().findFirst().ifPresent(first -> config.peer("127.0.0.1:" + first.linkAddress().getPort()));
        try {
            return Hub.start(config.build());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Until every node is linked to its hub and every hub knows every node (the side channel finds them). */
    private static void awaitHubNetwork(java.util.Collection<Traverse> nodes) throws IOException {
        long giveUp = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        for (Traverse node : nodes) {
            while (true) {
                try {
                    if (node.hubLinkStatus().isConnected() && node.hubDirectory().nodes().get(5, TimeUnit.SECONDS).size() == nodes.size()) {
                        break;
                    }
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException notYet) {
                    // asked again below
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while the hub network formed");
                }
                if (System.nanoTime() > giveUp) {
                    throw new IOException("the demo's hub network did not form within 20 s: " + node.hubLinkStatus());
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while the hub network formed");
                }
            }
        }
    }

    /**
     * The address others use. A misleading one lists another node's endpoint first, as a private
     * address that exists at two sites would; the identity check must reject it.
     */
    private static VirtualSocketAddress publishedAddress(DemoNode spec, Map<DemoNode, Traverse> nodes) {
        Traverse node = nodes.get(spec);
        if (!spec.misleadingAddress()) {
            return node.address(SERVICE_PORT);
        }
        Traverse other = nodes.get(TOPOLOGY.get(1));
        NodeIdentity misleading = NodeIdentity.builder().id(node.identity().id().orElseThrow())
                .address(other.identity().addresses().get(0)).addresses(node.identity().addresses()).build();
        return new VirtualSocketAddress(misleading, SERVICE_PORT);
    }

    private static PairResult.Expectation expectation(DemoNode from, DemoNode to) {
        FirewallRule.Action in = new SimulatedFirewall(to.firewall()).check(IpLiterals.parse(from.address())).action();
        if (in == FirewallRule.Action.ALLOW) {
            return PairResult.Expectation.DIRECT;
        }
        FirewallRule.Action back = new SimulatedFirewall(from.firewall()).check(IpLiterals.parse(to.address())).action();
        if (back == FirewallRule.Action.ALLOW) {
            return PairResult.Expectation.REVERSE;
        }
        // Both nodes have a hub link: the hubs relay what no firewall lets through.
        return PairResult.Expectation.ROUTED;
    }

    private void printTopology(PrintStream out, Map<DemoNode, Traverse> nodes, Map<DemoNode, VirtualSocketAddress> published) {
        out.println("Traverse demo: " + nodes.size() + " nodes in one JVM on loopback, one 127.0.N.0/24 per site, "
                + "simulated firewalls, a hub per site, connect timeout " + connectTimeout.toMillis() + " ms");
        out.println("modules: " + nodes.values().iterator().next().modules());
        out.println();
        String format = "%-8s %-7s %-16s %-40s %s%n";
        out.printf(Locale.ROOT, format, "node", "site", "listens on", "firewall", "node id");
        for (Map.Entry<DemoNode, Traverse> e : nodes.entrySet()) {
            DemoNode spec = e.getKey();
            InetSocketAddress listening = e.getValue().identity().addresses().get(0);
            out.printf(Locale.ROOT, format, spec.name(), spec.site(),
                    IpLiterals.formatEndpoint(listening.getAddress(), listening.getPort()), spec.describeFirewall(),
                    e.getValue().identity().id().orElseThrow());
        }
        for (DemoNode spec : TOPOLOGY) {
            if (spec.misleadingAddress()) {
                out.println();
                out.println(spec.name() + " is published as " + published.get(spec));
                out.println("  its first address is " + TOPOLOGY.get(1).name() + "'s endpoint (as when two sites reuse a "
                        + "private range): the identity check must skip it");
            }
        }
    }

    private static int summarize(PrintStream out, List<PairResult> results, Map<DemoNode, Traverse> nodes, long start) {
        long connected = results.stream().filter(PairResult::connected).count();
        long reversed = results.stream().filter(r -> r.connected() && r.module().equals("reverse")).count();
        long routed = results.stream().filter(r -> r.connected() && r.module().equals("routed")).count();
        long refused = results.stream().filter(r -> r.module().equals("refused")).count();
        long timedOut = results.stream().filter(r -> r.module().equals("timeout")).count();
        long unexpected = results.stream().filter(r -> !r.asExpected()).count();
        out.println();
        out.printf(Locale.ROOT, "%d pairs: %d connected (%d dialled back, %d relayed by hubs), %d refused, %d timed out; %s%n",
                results.size(), connected, reversed, routed, refused, timedOut, unexpected == 0 ? "every pair behaved as its firewalls predict"
                        : unexpected + " pair(s) did NOT behave as predicted");
        long attempts = 0;
        long successes = 0;
        for (Traverse node : nodes.values()) {
            for (ModuleStatistics s : node.statistics()) {
                attempts += s.attempts();
                successes += s.successes();
            }
        }
        out.printf(Locale.ROOT, "module attempts: %d, successes: %d; demo took %.1f s%n", attempts, successes,
                (System.nanoTime() - start) / 1e9);
        return unexpected == 0 ? 0 : 1;
    }
}
