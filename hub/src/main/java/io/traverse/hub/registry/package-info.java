/**
 * Nodes and names (paper §3.3.2): the nodes connected to this hub with their identity, observed
 * address, names and per-node limits; the rules a registered name obeys; and the index of every
 * node and name of the hub network, built from this hub's registry and the gossiped descriptions.
 */
package io.traverse.hub.registry;
