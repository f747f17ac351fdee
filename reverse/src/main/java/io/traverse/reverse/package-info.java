/**
 * The {@code reverse} connection module (paper §3.3.3 "Reverse"): when the target cannot be
 * dialled (firewall, NAT) but the source can, the source asks the target through the hubs' side
 * channel to dial back. The target reserves room in its virtual port's backlog, dials the
 * source's listening port with a REVERSE identity handshake carrying the source's one-time token,
 * and queues the connection for its server socket; the source's listener hands it to the waiting
 * attempt. Both ends get a kernel socket, checked by the identity handshake like a direct one.
 */
package io.traverse.reverse;
