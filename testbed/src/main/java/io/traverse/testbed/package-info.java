/**
 * The real-network testbed: emulated sites built from Linux network namespaces, veth pairs and
 * nftables NAT and firewalls, for integration tests and benchmarks that need real kernel
 * networking rather than loopback (paper §2.2: firewalls, NAT, overlapping private ranges;
 * §3.2.2: the identity check on direct connections). It needs root and the {@code ip}
 * (iproute2) and {@code nft} (nftables) tools; see {@link io.traverse.testbed.HostCapabilities}.
 *
 * <p>Building blocks:
 * <ul>
 *   <li>{@link io.traverse.testbed.Testbed} owns a run: it names namespaces {@code tvb-<pid>-<run>-<label>},
 *       removes them and stops their processes on close, at JVM exit, and — for runs that died — on
 *       the next run;</li>
 *   <li>{@link io.traverse.testbed.Internet} is the public network (one bridge, addresses from
 *       198.18.0.0/15 only); {@link io.traverse.testbed.Site} a private network behind a
 *       {@link io.traverse.testbed.NatRouter} with {@link io.traverse.testbed.NatMode},
 *       {@link io.traverse.testbed.PortForward}s and a {@link io.traverse.testbed.Firewall};
 *       {@link io.traverse.testbed.Host} a machine on either; {@link io.traverse.testbed.Site#siteBehind}
 *       puts a site behind another (a home router behind a carrier-grade NAT);</li>
 *   <li>{@link io.traverse.testbed.WanLatency} ({@link io.traverse.testbed.Testbed#wanLatency}) gives the
 *       internet one-way delays between places (sites and public hosts), from access latencies or
 *       round trips per pair, and optionally router hops that take off TTL: its bridge is then a
 *       user-space switch over TAP devices
 *       ({@code WanSwitch}, {@code wan-switch.c}, built with gcc at first use), since this kernel has
 *       no netem;</li>
 *   <li>{@link io.traverse.testbed.NetworkNamespace} runs commands and processes inside a namespace and
 *       loads {@link io.traverse.testbed.NftTable}s; {@link io.traverse.testbed.ConnectionCounter}
 *       proves that connections reached a machine;</li>
 *   <li>{@link io.traverse.testbed.NodeAgent} is a Traverse node in a child JVM inside a namespace,
 *       driven by {@link io.traverse.testbed.RunningNode}; transfers are verified end to end by
 *       {@link io.traverse.testbed.DigestEcho} and reported as {@link io.traverse.testbed.TransferResult}s;
 *       {@link io.traverse.testbed.RunningNode#coldConnect} starts a fresh agent JVM that connects at
 *       once (a first connection before the hub link is up); agents also time round trips
 *       ({@link io.traverse.testbed.RoundTripResult}) and dial plain sockets for comparison;
 *       {@link io.traverse.testbed.HubAgent} runs a hub in a namespace;
 *       {@link io.traverse.testbed.SshDaemon} a real OpenSSH sshd with keys and configuration made
 *       for one test (SSH tunnels, paper §3.2.4);</li>
 *   <li>{@link io.traverse.testbed.PortMappingGateway} runs miniupnpd (UPnP IGD, PCP, NAT-PMP) on
 *       a site's router, with a testbed-only public-looking address it is willing to map on;</li>
 *   <li>{@link io.traverse.testbed.MultiSiteNetwork} builds a network of sites from one
 *       {@link io.traverse.testbed.SiteLine} each (paper §4, Table 2: how frontend and nodes are
 *       connected, a {@link io.traverse.testbed.Reach}), with a hub on every frontend, and
 *       {@link io.traverse.testbed.ExpectedPath} derives from the lines which module should win
 *       each pair and where plain sockets get through.</li>
 * </ul>
 *
 * <pre>{@code
 * try (Testbed testbed = Testbed.create()) {
 *     Site home = testbed.site("home", "10.0.0.0/24");
 *     Site office = testbed.site("office", "10.0.0.0/24");           // same range on purpose
 *     Host a = home.host("a");
 *     Host b = office.host("b");
 *     office.router().forwardPort(17000, b, 7000);                   // DNAT on the office router
 *     RunningNode nodeB = RunningNode.start(b, NodeSettings.create().bind(b.address())
 *             .portRange("7000").external(office.router().publicAddress(), 17000));
 *     RunningNode nodeA = RunningNode.start(a, NodeSettings.create().bind(a.address()));
 *     TransferResult r = nodeA.connect(nodeB.address(), 1 << 20, Duration.ofSeconds(5));
 * }
 * }</pre>
 *
 * <p>No interface is created in the host's own namespace and no namespace has a route off the
 * testbed, so test traffic never leaves it.
 */
package io.traverse.testbed;
