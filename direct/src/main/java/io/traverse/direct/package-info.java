/**
 * The {@code direct} connection module (paper §3.2.2–3.2.3 and §3.3.3): plain TCP to the target's
 * addresses with the address-order heuristic and the identity handshake; the result is the kernel
 * socket. Addresses in networks named by {@code traverse.ssh.tunnels} are also tried through an
 * sshd (paper §3.2.4, with the gateways of {@code io.traverse.ssh}). Port mapping of the listening port
 * (UPnP IGD, PCP, NAT-PMP) lives in {@code io.traverse.direct.portmap}.
 */
package io.traverse.direct;
