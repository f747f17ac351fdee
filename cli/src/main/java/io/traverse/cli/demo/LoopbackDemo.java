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
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The demo: several nodes in this JVM on loopback, one 127.0.N.0/24 per site, with simulated
 * firewalls, and a hub per site (in this JVM too, linked into one hub network); every node
 * connects to every other and the results are printed. What each pair should do is derived from
 * both nodes' firewall rules — direct when the target lets the source in, reverse when only the
 * source can be dialled, splice when neither can but both are seen at public addresses, routed
 * through the hubs otherwise — and the exit code says whether reality agreed. Needs no root.
 *
 * <p>A node that only SSH reaches, through the demo's own OpenSSH sshd ({@link DemoSshd}), runs
 * where the machine has OpenSSH's server; without it the demo says so in one line. A spliced pair
 * runs only when asked for ({@code --splice}): it needs an interface address outside the private
 * ranges (the splice module splices only endpoints a hub sees at a public address; a loopback
 * address is not one), and on one host the kernel resets a SYN that arrives before the peer's own,
 * so the simultaneous open succeeds only when both sides fire within microseconds. As root, the
 * real network of {@link RealNetworkDemo} follows, and its pairs join the table.
 */
public final class LoopbackDemo {
    static final int SERVICE_PORT = 7000;

    /** The nodes that need nothing of the machine. */
    static final List<DemoNode> TOPOLOGY = List.of(
            new DemoNode("alpha", "site A", "127.0.1.1", List.of(), false),
            new DemoNode("beta", "site B", "127.0.2.1", List.of(), false),
            new DemoNode("gamma", "site C", "127.0.3.1", List.of(allow("127.0.3.0/24"), deny("all")), false),
            new DemoNode("delta", "site C", "127.0.3.2", List.of(allow("127.0.3.0/24"), drop("all")), false),
            new DemoNode("epsilon", "site D", "127.0.4.1", List.of(), true),
            new DemoNode("zeta", "site E", "127.0.5.1", List.of(deny("all")), false));
    /** Where the sshd's forwarded connections come from: the only source the SSH-only node lets in. */
    static final String SSHD_SOURCE = "127.0.0.1";

    static final String TOKEN = "traverse-demo";

    private final Duration connectTimeout;
    private final PairProbe probe;
    private final boolean withSsh;
    private final boolean withSplice;
    private final boolean withRealNetwork;
    private final int pings;
    private final long verifyBytes;

    public LoopbackDemo(Duration connectTimeout, int pings, long countBytes, long verifyBytes) {
        this(connectTimeout, pings, countBytes, verifyBytes, true, false, false);
    }

    /**
     * @param withSsh         run the demo's sshd and the node only it reaches, if the machine has OpenSSH's server
     * @param withSplice      run the spliced pair, if the machine has an interface address a hub would call public
     * @param withRealNetwork also run the real network ({@link RealNetworkDemo}), if this machine
     *                        allows it (root, {@code ip}, {@code nft}; miniupnpd for its port-mapping site)
     */
    public LoopbackDemo(
            Duration connectTimeout,
            int pings,
            long countBytes,
            long verifyBytes,
            boolean withSsh,
            boolean withSplice,
            boolean withRealNetwork) {
        this.connectTimeout = connectTimeout;
        this.pings = pings;
        this.verifyBytes = verifyBytes;
        this.probe = new PairProbe(pings, countBytes, verifyBytes);
        this.withSsh = withSsh;
        this.withSplice = withSplice;
        this.withRealNetwork = withRealNetwork;
    }

    /**
     * The topology on this machine: the fixed nodes; with a public interface address, zeta moves
     * there and theta joins it (both refuse everyone: they splice); with the sshd, eta, which lets
     * in only the sshd.
     */
    static List<DemoNode> topology(Optional<String> publicAddress, boolean ssh) {
        List<DemoNode> nodes = new ArrayList<>(TOPOLOGY);
        publicAddress.ifPresent(p -> {
            nodes.set(5, new DemoNode("zeta", "site E", p, List.of(deny("all")), false));
            nodes.add(new DemoNode("theta", "site E", p, List.of(deny("all")), false));
        });
        if (ssh) {
            nodes.add(new DemoNode(
                    "eta", "site F", "127.0.6.1", List.of(allow(SSHD_SOURCE + "/32"), deny("all")), false, true));
        }
        return List.copyOf(nodes);
    }

    /** Runs the demo; returns 0 when every pair behaved as its topology predicts. */
    public int run(PrintStream out) throws IOException {
        long start = System.nanoTime();
        List<String> notes = new ArrayList<>();
        Optional<String> publicAddress = Optional.empty();
        Optional<String> noRealNetwork =
                withRealNetwork ? RealNetworkDemo.missing() : Optional.of("--no-real-network was given");
        Optional<String> noPortMapping =
                noRealNetwork.isPresent() ? noRealNetwork : RealNetworkDemo.portMappingMissing();
        if (!withSplice) {
            notes.add(
                    "splice: not on loopback by default: both nodes would run on this one host, where the kernel answers a SYN"
                            + " that arrives before the peer's own with a reset at once, so a simultaneous open succeeds only when both"
                            + " connect() calls land within microseconds (a busy machine misses most rounds); --splice tries it here; "
                            + (noRealNetwork.isEmpty()
                                    ? "the real network below splices through real NAT"
                                    : "as root with ip and nft, the demo's real network splices through real NAT"));
        } else {
            publicAddress = PublicInterfaceAddress.find().map(IpLiterals::format);
            if (publicAddress.isEmpty()) {
                notes.add(
                        "splice: skipped: this machine has no interface address outside the private, loopback and link-local"
                                + " ranges, and the splice module splices only endpoints a hub sees at a public address (a loopback one"
                                + " could not be reached from elsewhere); the six-site matrix splices (bench/run-matrix.sh)");
            }
        }
        DemoSshd sshd = null;
        if (withSsh) {
            Optional<String> missing = DemoSshd.missing();
            if (missing.isPresent()) {
                notes.add("ssh: skipped: " + missing.get()
                        + "; the six-site matrix shows SSH tunnels (bench/run-matrix.sh)");
            } else {
                try {
                    sshd = DemoSshd.start();
                } catch (IOException e) {
                    notes.add("ssh: skipped: the demo's own sshd did not work here: " + e.getMessage());
                }
            }
        }
        noRealNetwork.ifPresent(
                why -> notes.add("real network: skipped: " + why + "; with it, the demo adds sites in network"
                        + " namespaces behind real NAT whose nodes splice, and a router running miniupnpd whose node is reached through"
                        + " its mapped port (loopback has no NAT router that grants mappings)"));
        if (noRealNetwork.isEmpty() && noPortMapping.isPresent()) {
            notes.add("port mapping: skipped: " + noPortMapping.get()
                    + "; the real network runs without its port-mapping site"
                    + " (loopback has no NAT router that grants mappings)");
        }
        List<DemoNode> topology = topology(publicAddress, sshd != null);
        DemoSshd tunnels = sshd;
        String tunnelRules = tunnels == null
                ? ""
                : String.join(
                        ";",
                        topology.stream()
                                .filter(DemoNode::throughSsh)
                                .map(n -> tunnels.tunnelRule(n.address() + "/32"))
                                .toList());
        Map<DemoNode, Traverse> nodes = new LinkedHashMap<>();
        Map<DemoNode, VirtualSocketAddress> published = new LinkedHashMap<>();
        ExecutorService serverThreads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "demo-server");
            t.setDaemon(true);
            return t;
        });
        Map<String, Hub> hubs = new LinkedHashMap<>();
        List<PairResult> results = new ArrayList<>();
        long[] attempts = new long[2];
        try {
            for (DemoNode spec : topology) {
                Hub hub = hubs.computeIfAbsent(spec.site(), site -> startHub(site, hubs.values()));
                TraverseConfig.Builder config = TraverseConfig.builder()
                        .bind(spec.address())
                        .firewall(spec.firewall())
                        .connectTimeout(connectTimeout)
                        .token(TOKEN)
                        .discovery(false)
                        .hubs(List.of(new InetSocketAddress(
                                "127.0.0.1", hub.linkAddress().getPort())));
                if (!tunnelRules.isEmpty()) {
                    config.set(
                            "traverse.ssh.tunnels",
                            tunnelRules); // every node may log in to the sshd: it logs in at start
                }
                Traverse node = Traverse.start(config.build());
                nodes.put(spec, node);
                TraverseServerSocket server = node.serverSocketFactory().createServerSocket(SERVICE_PORT);
                new VerificationServer(server, serverThreads).start();
            }
            awaitHubNetwork(nodes.values());
            for (DemoNode spec : topology) {
                published.put(spec, publishedAddress(spec, nodes));
            }
            printTopology(out, nodes, published, notes, sshd);

            for (DemoNode from : topology) {
                for (DemoNode to : topology) {
                    if (from != to) {
                        results.add(probe.probe(
                                from.name(),
                                nodes.get(from),
                                to.name(),
                                published.get(to),
                                expectation(from, to, sshd != null)));
                    }
                }
            }
            for (Traverse node : nodes.values()) {
                for (ModuleStatistics s : node.statistics()) {
                    attempts[0] += s.attempts();
                    attempts[1] += s.successes();
                }
            }
        } finally {
            for (Traverse node : nodes.values()) {
                node.close();
            }
            hubs.values().forEach(Hub::close);
            serverThreads.shutdownNow();
            if (sshd != null) {
                sshd.close();
            }
        }
        boolean realNetworkFailed = false;
        if (noRealNetwork.isEmpty()) {
            // After the loopback nodes are gone: the node JVMs get the machine's cores to themselves.
            try (RealNetworkDemo real = RealNetworkDemo.open(pings, verifyBytes)) {
                results.addAll(real.run(RealNetworkDemo.topology(noPortMapping.isEmpty()), out));
            } catch (RuntimeException e) {
                out.println();
                out.println("real network: FAILED: " + e.getMessage());
                realNetworkFailed = true;
            }
        }
        out.println();
        ResultTable.print(out, results);
        int exit = summarize(out, results, attempts, start);
        return realNetworkFailed ? 1 : exit;
    }

    /** A site's hub on 127.0.0.1, linked to the first one. */
    private static Hub startHub(String site, java.util.Collection<Hub> started) {
        HubConfig.Builder config = HubConfig.builder()
                .bindAddress("127.0.0.1")
                .port(0)
                .httpPort(-1)
                .token(TOKEN)
                .name("demo-" + site.replace(' ', '-'));
        started.stream()
                .findFirst()
                .ifPresent(
                        first -> config.peer("127.0.0.1:" + first.linkAddress().getPort()));
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
                    if (node.hubLinkStatus().isConnected()
                            && node.hubDirectory()
                                            .nodes()
                                            .get(5, TimeUnit.SECONDS)
                                            .size()
                                    == nodes.size()) {
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
        NodeIdentity misleading = NodeIdentity.builder()
                .id(node.identity().id().orElseThrow())
                .address(other.identity().addresses().get(0))
                .addresses(node.identity().addresses())
                .build();
        return new VirtualSocketAddress(misleading, SERVICE_PORT);
    }

    /**
     * Where a connection from {@code from} to {@code to} comes from, as the target's firewall sees
     * it: a node on a loopback alias sends from it to loopback; the kernel sends to loopback from
     * 127.0.0.1 otherwise, and to an interface address of this machine from that address itself.
     */
    static String sourceSeenBy(DemoNode from, DemoNode to) {
        if (to.onLoopback()) {
            return from.onLoopback() ? from.address() : SSHD_SOURCE;
        }
        return to.address();
    }

    private static boolean lets(DemoNode target, String source) {
        return new SimulatedFirewall(target.firewall())
                        .check(IpLiterals.parse(source))
                        .action()
                == FirewallRule.Action.ALLOW;
    }

    /** The modules in racing order, each with when it gets through; the first that does wins. */
    static PairResult.Expectation expectation(DemoNode from, DemoNode to, boolean ssh) {
        if (lets(to, sourceSeenBy(from, to))) {
            return PairResult.Expectation.DIRECT;
        }
        if (ssh && to.throughSsh() && lets(to, SSHD_SOURCE)) {
            return PairResult.Expectation
                    .DIRECT_SSH; // the plain attempt is refused at once: the tunnel follows without a stagger
        }
        if (lets(from, sourceSeenBy(to, from))) {
            return PairResult.Expectation.REVERSE;
        }
        if (ssh && from.throughSsh() && lets(from, SSHD_SOURCE)) {
            return PairResult.Expectation.REVERSE_SSH;
        }
        if (from.spliceable() && to.spliceable()) {
            return PairResult.Expectation.SPLICE; // simulated firewalls keep out connections, not a simultaneous open
        }
        // Both nodes have a hub link: the hubs relay what no firewall lets through.
        return PairResult.Expectation.ROUTED;
    }

    private void printTopology(
            PrintStream out,
            Map<DemoNode, Traverse> nodes,
            Map<DemoNode, VirtualSocketAddress> published,
            List<String> notes,
            DemoSshd sshd) {
        out.println("Traverse demo: " + nodes.size() + " nodes in one JVM on loopback, one 127.0.N.0/24 per site, "
                + "simulated firewalls, a hub per site, connect timeout " + connectTimeout.toMillis() + " ms");
        out.println("modules: " + nodes.values().iterator().next().modules());
        notes.forEach(out::println);
        out.println();
        String format = "%-8s %-7s %-22s %-40s %s%n";
        out.printf(Locale.ROOT, format, "node", "site", "listens on", "firewall", "node id");
        for (Map.Entry<DemoNode, Traverse> e : nodes.entrySet()) {
            DemoNode spec = e.getKey();
            InetSocketAddress listening = e.getValue().identity().addresses().get(0);
            out.printf(
                    Locale.ROOT,
                    format,
                    spec.name(),
                    spec.site(),
                    IpLiterals.formatEndpoint(listening.getAddress(), listening.getPort()),
                    spec.describeFirewall(),
                    e.getValue().identity().id().orElseThrow());
        }
        List<DemoNode> topology = List.copyOf(nodes.keySet());
        for (DemoNode spec : topology) {
            if (spec.misleadingAddress()) {
                out.println();
                out.println(spec.name() + " is published as " + published.get(spec));
                out.println(
                        "  its first address is " + TOPOLOGY.get(1).name() + "'s endpoint (as when two sites reuse a "
                                + "private range): the identity check must skip it");
            }
        }
        List<String> spliced = topology.stream()
                .filter(DemoNode::spliceable)
                .map(DemoNode::name)
                .toList();
        if (spliced.size() > 1) {
            out.println();
            out.println(String.join(" and ", spliced) + " listen on "
                    + topology.stream()
                            .filter(DemoNode::spliceable)
                            .findFirst()
                            .orElseThrow()
                            .address()
                    + ", an address of this machine that the hubs see as public: refusing each other,"
                    + " they splice");
            out.println(
                    "  (each sends SYNs from a fresh port at an agreed instant; simulated firewalls, like stateful ones, "
                            + "let such a simultaneous open through)");
        }
        if (sshd != null) {
            for (DemoNode spec : topology) {
                if (spec.throughSsh()) {
                    out.println();
                    out.println(spec.name() + " lets in only " + SSHD_SOURCE
                            + ", where this demo's sshd (OpenSSH, 127.0.0.1:"
                            + sshd.port() + ", user " + sshd.user()
                            + ") forwards from; every node has a tunnel rule for "
                            + spec.address() + " through it and logged in at start");
                    if (!spliced.isEmpty()) {
                        out.println("  (" + String.join(" and ", spliced) + ", off loopback, reach loopback from "
                                + SSHD_SOURCE + " too: they get in plainly)");
                    }
                }
            }
            out.println("  direct/ssh, reverse/ssh: through the sshd's port forwarding, half-close carried in-band");
        }
    }

    private static int summarize(PrintStream out, List<PairResult> results, long[] attempts, long start) {
        long connected = results.stream().filter(PairResult::connected).count();
        long reversed = count(results, "reverse") + count(results, "reverse/ssh");
        long throughSsh = count(results, "direct/ssh") + count(results, "reverse/ssh");
        long upgraded = count(results, PairResult.UPGRADED_TO_SPLICE);
        long spliced = count(results, "splice") + upgraded;
        long routed = count(results, "routed");
        long refused =
                results.stream().filter(r -> r.module().equals("refused")).count();
        long timedOut =
                results.stream().filter(r -> r.module().equals("timeout")).count();
        long unexpected = results.stream().filter(r -> !r.asExpected()).count();
        out.println();
        out.printf(
                Locale.ROOT,
                "%d pairs: %d connected (%d dialled back, %d through SSH, %d spliced%s, %d relayed by hubs), %d refused,"
                        + " %d timed out; %s%n",
                results.size(),
                connected,
                reversed,
                throughSsh,
                spliced,
                upgraded == 0 ? "" : " (" + upgraded + " after a first relayed connection)",
                routed,
                refused,
                timedOut,
                unexpected == 0
                        ? "every pair behaved as its firewalls predict"
                        : unexpected + " pair(s) did NOT behave as predicted");
        out.printf(
                Locale.ROOT,
                "module attempts on loopback: %d, successes: %d; demo took %.1f s%n",
                attempts[0],
                attempts[1],
                (System.nanoTime() - start) / 1e9);
        return unexpected == 0 ? 0 : 1;
    }

    private static long count(List<PairResult> results, String shown) {
        return results.stream()
                .filter(r -> r.connected() && r.module().equals(shown))
                .count();
    }
}
