/**
 * Hub discovery on a site network (the super-node lookup of the supernodes paper, kept
 * to one site as SmartSockets' hubs are, paper §3.3.1): the versioned PROBE/ANSWER datagrams and
 * {@link io.traverse.discovery.HubFinder}, which a node uses when no hub is configured. Multicast
 * to 239.255.84.86:17000, broadcast as the fallback. The hub's responder lives in the hub module.
 */
package io.traverse.discovery;
