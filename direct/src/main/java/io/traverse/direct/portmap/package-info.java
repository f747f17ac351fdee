/**
 * Port mapping for the {@code direct} module (paper §3.2.1, external addresses): the
 * node asks the NAT router in front of it to forward a public port to its listening port, with
 * UPnP IGD (weupnp), PCP (RFC 6887) or NAT-PMP (RFC 6886), and advertises the mapped address, so
 * a node behind NAT becomes directly reachable. Off unless {@code traverse.portmap=true}.
 */
package io.traverse.direct.portmap;
