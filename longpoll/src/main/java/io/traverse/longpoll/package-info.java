/**
 * The {@code longpoll} connection module (papers/robusttrav-longpolling.txt): virtual
 * connections whose local leg is the node's long-poll session with its hub, for sites whose only
 * way out is an HTTP proxy that refuses CONNECT. The session itself is the hub link
 * ({@code io.traverse.hublink.LongPollClient} in core, {@code io.traverse.hub.longpoll} in the
 * hub); over it this module opens the same relayed connections as the routed module (credit
 * windows, half-close, probes), on the node's one table of them, which is why it depends on
 * traverse-routed. It plans an attempt only while the hub link is a long-poll session; routed
 * then leaves the request to it.
 */
package io.traverse.longpoll;
