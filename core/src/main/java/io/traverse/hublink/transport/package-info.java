/**
 * How the node's bytes reach a hub, below the link's state machine ({@code io.traverse.hublink}):
 * one attempt at one hub ({@link io.traverse.hublink.transport.HubLinkDial}, OkHttp's
 * {@code ConnectPlan} is the model) resolves it, connects by TCP or through the
 * {@link io.traverse.spi.HttpTransport} (a proxy's CONNECT tunnel or a long-poll session, from
 * traverse-longpoll) and runs the link handshake ({@link io.traverse.hublink.transport.NodeLinkHandshake});
 * the data link ({@link io.traverse.hublink.transport.HubDataLink}) is a second socket to the same hub
 * for relayed bytes, read and written by the node's own threads. The event loops all links share are
 * {@link io.traverse.hublink.transport.LinkEventLoops}. Nothing here depends on the link above it.
 */
package io.traverse.hublink.transport;
