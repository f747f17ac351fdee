/**
 * Hub links (paper §3.3.1): accepting node and hub links, dialling other hubs with jittered
 * backoff, the mutual challenge-response handshake of {@link io.traverse.wire.LinkAuthentication},
 * keepalives with RTT, and the hand-off of authenticated links' messages to the hub's state
 * loop with backpressure. Knows nothing of gossip or routing: it reports to {@link
 * io.traverse.hub.link.LinkEvents}.
 */
package io.traverse.hub.link;
