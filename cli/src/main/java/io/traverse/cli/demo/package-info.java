/**
 * {@code traverse demo}: nodes on loopback with simulated firewalls (paper §5's connection-refusing
 * handshake), every pair connected and measured; the expected outcome of each pair is derived from
 * the firewall rules and checked. As root, {@link io.traverse.cli.demo.RealNetworkDemo} adds sites
 * in network namespaces behind real NAT (the {@code testbed} module): two whose nodes splice
 * (paper §3.3.3) and one whose router maps its node's port (UPnP IGD, PCP, NAT-PMP).
 */
package io.traverse.cli.demo;
