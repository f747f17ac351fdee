/**
 * The {@code direct} connection module (paper §3.2.2–3.2.3 and §3.3.3): plain TCP to the target's
 * addresses with the address-order heuristic and the identity handshake; the result is the kernel
 * socket. Port mapping of the listening port (UPnP IGD, PCP, NAT-PMP) lives in
 * {@code io.traverse.direct.portmap}; SSH tunnelling joins it in a later issue.
 */
package io.traverse.direct;
