package io.traverse.testbed;

import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * A network of sites built from {@link SiteLine}s, as in the paper's evaluation (§4): every site
 * has a frontend running a hub and one compute node; every hub is given the public addresses of
 * all other hubs and forms its links by itself (a hub without a public address, or behind a
 * firewall, only dials out). Nodes are linked to their own site's hub, with discovery off.
 *
 * <p>How a {@link Reach} is built: a site is a {@link Site} (its router masquerades; for
 * {@link Reach#NAT_FIREWALLED} its firewall drops inbound connections, otherwise the router resets
 * them; for {@link Reach#NAT_RANDOM_PORTS} it randomises source ports; for
 * {@link Reach#NAT_BEHIND_CARRIER} it is a host of a carrier-grade NAT's site, {@code <name>-cgn},
 * which masquerades and resets too). A multi-homed machine also gets a public address on the {@link Internet} (interface
 * {@value #PUBLIC_INTERFACE}), through which it reaches other public addresses directly; a
 * {@link Reach#FIREWALLED} one loads a dropping {@link Firewall} on that interface. A
 * {@link Reach#NON_ROUTED} node has no route beyond its site's network. A {@link Reach#SSH_ONLY}
 * site's router drops every new connection in except SSH, which it forwards to the frontend's real
 * OpenSSH sshd ({@link SshDaemon}: keys made for this network, known_hosts from its host key), and
 * every new connection out; its nodes are non-routed. Every other hub peers with its hub, and every
 * other node may dial its nodes, through that sshd ({@code traverse.hub.ssh.tunnels} and
 * {@code traverse.ssh.tunnels} rules for the site's range, the router's public address as gateway,
 * host keys checked strictly): a network reached through SSH must not share its range with sites
 * reached otherwise, or the rule would send their traffic there too. A {@link Reach#PROXY_ONLY}
 * site (not in the paper) is one machine, its node, behind a router that drops every new
 * connection in and everything its site sends out except through a real HTTP proxy on the router
 * that allows CONNECT ({@link SiteHttpProxy}); it runs no hub, and its node links through the proxy
 * to the hub of the first site whose frontend accepts connections from outside ({@link Reach#OPEN}).
 *
 * <p>Each node agent serves the plain TCP verification and echo ports
 * {@value #PLAIN_SERVICE_PORT} and {@value #PLAIN_ECHO_PORT} on every address, so plain sockets can
 * be compared on the same machines ({@link #plainService}: the node's public address if it has
 * one, else its private one, as an application would be given).
 */
public final class MultiSiteNetwork {
    /** The hubs' port on every frontend. */
    public static final int HUB_PORT = 17000;
    /** The plain verification port of every node. */
    public static final int PLAIN_SERVICE_PORT = 17007;
    /** The plain echo port of every node. */
    public static final int PLAIN_ECHO_PORT = 17008;
    /** The interface of a multi-homed machine on the internet. */
    public static final String PUBLIC_INTERFACE = "pub0";
    /** The carrier-grade NAT's network in front of a {@link Reach#NAT_BEHIND_CARRIER} site (RFC 6598 shared address space). */
    static final String CARRIER_RANGE = "100.64.0.0/24";

    private static final java.util.Set<Reach> NAT_KINDS =
            java.util.EnumSet.of(Reach.NAT, Reach.NAT_FIREWALLED, Reach.NAT_RANDOM_PORTS, Reach.NAT_BEHIND_CARRIER);

    /**
     * The machines of one site.
     *
     * @param line           what the site was built from
     * @param site           its private network and router
     * @param frontend       the machine running the hub (private address)
     * @param frontendPublic the frontend's public address, if it has one
     * @param node           the compute node's machine (the frontend itself for {@link Reach#ON_FRONTEND})
     * @param nodePublic     the node's public address, if it has one
     * @param hub            the hub's address as the site's node dials it (another site's, for a proxy-only site)
     */
    public record SiteMachines(
            SiteLine line,
            Site site,
            Host frontend,
            Optional<Inet4Address> frontendPublic,
            Host node,
            Optional<Inet4Address> nodePublic,
            String hub) {
        public String name() {
            return line.name();
        }
    }

    private final Testbed testbed;
    private final String token;
    private final Map<String, SiteMachines> sites;
    private final Map<String, RunningNode> nodes = new LinkedHashMap<>();
    /** Per SSH-only site, the tunnel rule for its range through its sshd. */
    private final Map<String, String> sshTunnels;
    /** Per proxy-only site, the HTTP proxy on its router. */
    private final Map<String, SiteHttpProxy> httpProxies;

    private MultiSiteNetwork(
            Testbed testbed,
            String token,
            Map<String, SiteMachines> sites,
            Map<String, String> sshTunnels,
            Map<String, SiteHttpProxy> httpProxies) {
        this.testbed = testbed;
        this.token = token;
        this.sites = sites;
        this.sshTunnels = sshTunnels;
        this.httpProxies = httpProxies;
    }

    /** Builds the sites' namespaces and starts their hubs (in parallel); nodes start with {@link #startNodes}. */
    public static MultiSiteNetwork build(Testbed testbed, List<SiteLine> lines, String token) {
        List<SiteLine> checked = List.copyOf(lines);
        if (checked.stream().map(SiteLine::name).distinct().count() != checked.size()) {
            throw new IllegalArgumentException("site names must differ: " + checked);
        }
        Map<String, Built> built = new LinkedHashMap<>();
        for (SiteLine line : checked) {
            built.put(line.name(), buildSite(testbed, line));
        }
        List<String> publicHubs = new ArrayList<>();
        List<String> sshHubs = new ArrayList<>();
        Map<String, String> sshTunnels = new LinkedHashMap<>();
        for (Built b : built.values()) {
            b.frontendPublic.ifPresent(a -> publicHubs.add(a.getHostAddress() + ":" + HUB_PORT));
            if (b.line.sshOnly()) {
                sshHubs.add(b.frontend.address().getHostAddress() + ":" + HUB_PORT);
                sshTunnels.put(b.line.name(), sshTunnelRule(b));
            }
        }
        Map<String, Supplier<String>> hubStarts = new LinkedHashMap<>();
        for (Built b : built.values()) {
            if (!b.line.runsHub()) {
                continue;
            }
            List<String> advertised;
            List<String> peers;
            List<String> tunnels;
            if (b.line.sshOnly()) { // dials nobody (it cannot); the others link to it through its sshd
                advertised = List.of(b.frontend.address().getHostAddress() + ":" + HUB_PORT);
                peers = List.of();
                tunnels = List.of();
            } else {
                advertised = b.frontendPublic
                        .map(a -> List.of(a.getHostAddress() + ":" + HUB_PORT))
                        .orElse(List.of());
                List<String> all = new ArrayList<>(publicHubs);
                all.addAll(sshHubs);
                peers = all.stream().filter(p -> !advertised.contains(p)).toList();
                tunnels = List.copyOf(sshTunnels.values());
            }
            hubStarts.put(b.line.name(), () -> {
                try {
                    return HubAgent.startOn(b.frontend, HUB_PORT, token, b.line.name(), advertised, peers, tunnels);
                } catch (Exception e) {
                    throw new TestbedException("hub of site " + b.line.name() + ": " + e.getMessage(), e);
                }
            });
        }
        Map<String, String> hubs = inParallel(hubStarts);
        Map<String, SiteMachines> sites = new LinkedHashMap<>();
        Map<String, SiteHttpProxy> httpProxies = new LinkedHashMap<>();
        for (Built b : built.values()) {
            String hub = b.line.runsHub() ? hubs.get(b.line.name()) : hubBehindProxy(built.values(), b.line);
            sites.put(
                    b.line.name(),
                    new SiteMachines(b.line, b.site, b.frontend, b.frontendPublic, b.node, b.nodePublic, hub));
            b.httpProxy.ifPresent(proxy -> httpProxies.put(b.line.name(), proxy));
        }
        return new MultiSiteNetwork(testbed, token, sites, Map.copyOf(sshTunnels), Map.copyOf(httpProxies));
    }

    /** The hub a proxy-only site's node links to through its proxy: the first one that accepts links from outside. */
    private static String hubBehindProxy(java.util.Collection<Built> built, SiteLine proxyOnly) {
        return built.stream()
                .filter(b -> b.line.runsHub() && b.line.frontend().acceptsFromOutside())
                .findFirst()
                .map(b -> b.frontendPublic.orElseThrow().getHostAddress() + ":" + HUB_PORT)
                .orElseThrow(() -> new IllegalArgumentException("proxy-only site " + proxyOnly.name()
                        + " needs a site whose hub accepts links from outside (frontend " + Reach.OPEN
                        + ") to link to"));
    }

    private record Built(
            SiteLine line,
            Site site,
            Host frontend,
            Optional<Inet4Address> frontendPublic,
            Host node,
            Optional<Inet4Address> nodePublic,
            Optional<SshDaemon> sshd,
            Optional<SiteHttpProxy> httpProxy) {
        Built(
                SiteLine line,
                Site site,
                Host frontend,
                Optional<Inet4Address> frontendPublic,
                Host node,
                Optional<Inet4Address> nodePublic) {
            this(line, site, frontend, frontendPublic, node, nodePublic, Optional.empty(), Optional.empty());
        }
    }

    /** The rule for an SSH-only site's range: through its router's SSH port, its host key checked against a known_hosts made from it. */
    private static String sshTunnelRule(Built b) {
        SshDaemon sshd = b.sshd.orElseThrow();
        String gateway = b.site.router().publicAddress().getHostAddress();
        return sshd.tunnelRule(b.line.privateRange(), gateway, sshd.knownHostsAs(gateway));
    }

    private static Built buildSite(Testbed testbed, SiteLine line) {
        if (NAT_KINDS.contains(line.frontend())
                && NAT_KINDS.contains(line.nodes())
                && line.frontend() != line.nodes()) {
            throw new IllegalArgumentException("site " + line.name() + " has one router: its frontend ("
                    + line.frontend() + ") and its nodes (" + line.nodes() + ") must be behind the same kind of NAT");
        }
        Site site = line.frontend() == Reach.NAT_BEHIND_CARRIER || line.nodes() == Reach.NAT_BEHIND_CARRIER
                ? testbed.site(line.name() + "-cgn", CARRIER_RANGE).siteBehind(line.name(), line.privateRange())
                : testbed.site(line.name(), line.privateRange());
        if (line.frontend() == Reach.NAT_RANDOM_PORTS || line.nodes() == Reach.NAT_RANDOM_PORTS) {
            site.router().nat(NatMode.MASQUERADE_RANDOM);
        }
        if (line.sshOnly()) {
            Host frontend = site.host("fe");
            site.router()
                    .firewall(Firewall.dropInbound().droppingOutbound())
                    .forwardPort(SshDaemon.PORT, frontend, SshDaemon.PORT);
            Optional<SshDaemon> sshd = Optional.of(SshDaemon.startOn(frontend));
            Host node = line.nodeOnFrontend() ? frontend : site.nonRoutedHost("node");
            return new Built(line, site, frontend, Optional.empty(), node, Optional.empty(), sshd, Optional.empty());
        }
        if (line.proxyOnly()) { // nothing in; out only through the proxy on the router, which allows CONNECT
            site.router().firewall(Firewall.dropInbound());
            SiteHttpProxy proxy = SiteHttpProxy.start(site);
            Host node = site.host("node");
            return new Built(
                    line, site, node, Optional.empty(), node, Optional.empty(), Optional.empty(), Optional.of(proxy));
        }
        if (line.frontend() == Reach.NAT_FIREWALLED || line.nodes() == Reach.NAT_FIREWALLED) {
            site.router().firewall(Firewall.dropInbound());
        }
        Host frontend = site.host("fe");
        Optional<Inet4Address> frontendPublic = equip(testbed, frontend, line.frontend());
        if (line.nodeOnFrontend()) {
            return new Built(line, site, frontend, frontendPublic, frontend, frontendPublic);
        }
        Host node = line.nodes() == Reach.NON_ROUTED ? site.nonRoutedHost("node") : site.host("node");
        return new Built(line, site, frontend, frontendPublic, node, equip(testbed, node, line.nodes()));
    }

    /** Gives a multi-homed machine its public address (and firewall); returns the address. */
    private static Optional<Inet4Address> equip(Testbed testbed, Host host, Reach reach) {
        if (!reach.hasPublicAddress()) {
            return Optional.empty();
        }
        Inet4Address address = testbed.internet().attach(host.namespace(), PUBLIC_INTERFACE);
        if (!reach.acceptsFromOutside()) {
            host.namespace().load(Firewall.dropInbound().table(PUBLIC_INTERFACE, false));
        }
        return Optional.of(address);
    }

    public List<SiteMachines> sites() {
        return List.copyOf(sites.values());
    }

    public SiteMachines site(String name) {
        SiteMachines site = sites.get(name);
        if (site == null) {
            throw new IllegalArgumentException("no site " + name + "; the sites are " + sites.keySet());
        }
        return site;
    }

    /**
     * How a node of {@code site} is configured: linked to its site's hub, the network's token, no
     * discovery; at a proxy-only site, linked to its hub through the site's HTTP proxy (and no SSH
     * tunnels: it cannot reach an sshd).
     */
    public NodeSettings nodeSettings(String site) {
        NodeSettings settings = NodeSettings.linkedTo(site(site).hub(), token);
        SiteHttpProxy proxy = httpProxies.get(site);
        if (proxy != null) {
            return settings.set("traverse.http.proxy", proxy.authority());
        }
        List<String> tunnels = sshTunnels.entrySet().stream()
                .filter(e -> !e.getKey().equals(site))
                .map(Map.Entry::getValue)
                .toList();
        return tunnels.isEmpty() ? settings : settings.set("traverse.ssh.tunnels", String.join(";", tunnels));
    }

    /** The HTTP proxy a proxy-only site's node goes out through; empty for other sites. */
    public Optional<SiteHttpProxy> httpProxy(String site) {
        site(site); // checks the name
        return Optional.ofNullable(httpProxies.get(site));
    }

    /** The {@code traverse.ssh.tunnels} rules of the SSH-only sites, by site name (empty if there are none). */
    public Map<String, String> sshTunnels() {
        return sshTunnels;
    }

    /**
     * Starts every site's node (in parallel, each with its plain ports) and waits until each one's
     * hub knows every node and every hub of the network.
     *
     * @throws TestbedException if a node does not start or the network does not settle in {@code settle}
     */
    public void startNodes(Duration settle) {
        Map<String, Supplier<RunningNode>> starts = new LinkedHashMap<>();
        for (SiteMachines site : sites.values()) {
            starts.put(
                    site.name(),
                    () -> RunningNode.start(
                            site.node(), nodeSettings(site.name()).plainPorts(PLAIN_SERVICE_PORT, PLAIN_ECHO_PORT)));
        }
        nodes.putAll(inParallel(starts));
        int hubs = (int) sites.values().stream().filter(s -> s.line().runsHub()).count();
        for (Map.Entry<String, RunningNode> e : nodes.entrySet()) {
            String answer = e.getValue().awaitNetwork(sites.size(), hubs, settle);
            if (!answer.startsWith("network ok")) {
                throw new TestbedException(
                        "the hub network did not settle within " + settle.toMillis() + " ms as seen from " + e.getKey()
                                + ": " + answer + " (want " + sites.size() + " nodes and " + hubs + " hubs)");
            }
        }
    }

    /** The running node of {@code site} (after {@link #startNodes}). */
    public RunningNode node(String site) {
        RunningNode node = nodes.get(site);
        if (node == null) {
            throw new IllegalStateException("the node of site " + site + " is not running");
        }
        return node;
    }

    /** Where a plain socket would dial {@code site}'s node: its public address if it has one, else its private one. */
    public InetSocketAddress plainService(String site) {
        return new InetSocketAddress(plainAddress(site(site)), PLAIN_SERVICE_PORT);
    }

    /** Like {@link #plainService}, for the plain echo. */
    public InetSocketAddress plainEcho(String site) {
        return new InetSocketAddress(plainAddress(site(site)), PLAIN_ECHO_PORT);
    }

    private static Inet4Address plainAddress(SiteMachines site) {
        return site.nodePublic().orElse(site.node().address());
    }

    public Testbed testbed() {
        return testbed;
    }

    /** Runs the tasks at once, each on its own thread; the first failure is thrown after all have ended. */
    static <T> Map<String, T> inParallel(Map<String, Supplier<T>> tasks) {
        ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, tasks.size()));
        try {
            Map<String, CompletableFuture<T>> futures = new LinkedHashMap<>();
            tasks.forEach((name, task) -> futures.put(name, CompletableFuture.supplyAsync(task, threads)));
            Map<String, T> results = new LinkedHashMap<>();
            RuntimeException failure = null;
            for (Map.Entry<String, CompletableFuture<T>> e : futures.entrySet()) {
                try {
                    results.put(e.getKey(), e.getValue().join());
                } catch (CompletionException ce) {
                    RuntimeException cause = ce.getCause() instanceof RuntimeException r
                            ? r
                            : new TestbedException(e.getKey() + ": " + ce.getCause(), ce.getCause());
                    if (failure == null) {
                        failure = cause;
                    } else {
                        failure.addSuppressed(cause);
                    }
                }
            }
            if (failure != null) {
                throw failure;
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }
}
