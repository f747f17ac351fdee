/**
 * The {@code splice} connection module (paper §3.2.3 and §3.3.3 "Splicing"): TCP simultaneous
 * open between two nodes that both sit behind NAT or firewalls. Each side learns its public
 * endpoint from the hub's endpoint echo (and, from two echoes, whether its NAT keeps, steps or
 * randomises ports), the two exchange endpoints through the side channel, and both fire SYNs from
 * a bound port at agreed instants so that they cross; the result is a kernel socket checked by
 * the identity handshake. A NAT that randomises ports is refused at once, so the chain moves on.
 */
package io.traverse.splice;
