/**
 * The identity handshake that opens every connection a node dials (paper §3.2.2), its
 * {@link io.traverse.protocol.ProtocolException}, and {@link io.traverse.protocol.Deadline}, the
 * time left for an operation. Codecs only: no sockets, no behaviour. Specified in docs/protocol.md.
 */
package io.traverse.protocol;
