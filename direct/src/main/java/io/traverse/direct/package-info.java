/**
 * The {@code direct} connection module (paper §3.2.2–3.2.3 and §3.3.3): plain TCP to the target's
 * addresses with the address-order heuristic and the identity handshake; the result is the kernel
 * socket. SSH tunnelling and port mapping (UPnP IGD, NAT-PMP/PCP) join it in later issues.
 */
package io.traverse.direct;
