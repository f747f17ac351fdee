/**
 * The hub daemon (paper §3.3.1–3.3.2; hubs are the super nodes of the supernodes paper):
 * {@link io.traverse.hub.Hub} runs one, configured by {@link io.traverse.hub.HubConfig}. Nodes
 * keep a link to a hub; hubs link to each other, gossip their descriptions, route side messages
 * over shortest paths and keep the name registry. Every decision is made on one state loop,
 * coordinated by {@code HubCore} with its parts here (admission, node requests, names, gossip,
 * route scheduling); the sub-packages hold the parts: links, gossip, routing, registry, side
 * channel, lookups, the hub's id.
 */
package io.traverse.hub;
