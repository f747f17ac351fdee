/**
 * Wire formats shared by nodes (and, later, hubs): the identity handshake that opens every direct
 * connection (paper §3.2.2). Codecs only: no sockets, no behaviour. Specified in docs/protocol.md.
 */
package io.traverse.protocol;
