/**
 * The node's link to the hub network (paper §3.3.1–3.3.2): one authenticated Netty
 * link per node on a small event-loop group shared by the JVM, with keepalive, reconnect with
 * jittered backoff and failover across hubs ({@link io.traverse.hublink.HubLink}); names kept
 * registered across hub changes; the side channel ({@link io.traverse.hublink.NodeSideChannel})
 * and lookups ({@link io.traverse.hublink.NodeHubDirectory}) through the hub. How its bytes reach
 * a hub (TCP, CONNECT, long-poll; the handshake; the data link) is {@code io.traverse.hublink.transport};
 * the wire format is {@code io.traverse.wire}.
 */
package io.traverse.hublink;
