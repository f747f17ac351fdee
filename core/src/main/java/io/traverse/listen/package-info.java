/**
 * The incoming side of direct connections (paper §3.2.2): one real listening port per node, an
 * acceptor thread, a non-blocking handshake thread that applies the simulated firewall and the
 * identity check, and the virtual ports whose backlogs receive accepted connections.
 */
package io.traverse.listen;
