/**
 * Simulated firewalls: per-node accept/deny/drop rules by source network, applied to incoming
 * direct connections (the connection-refusing handshake of paper §5), so restricted topologies can
 * be built on loopback without root.
 */
package io.traverse.firewall;
