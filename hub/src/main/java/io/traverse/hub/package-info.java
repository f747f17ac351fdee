/**
 * The hub daemon (paper §3.3.1–3.3.2; hubs are the super nodes of the supernodes paper): links,
 * gossip and routing, side channel, name registry, relaying. Not built yet: issue 3.
 */
package io.traverse.hub;
