/**
 * Gossip between hubs (paper §3.3.1): each hub's own description with a state number that grows
 * across restarts, and the directory of every other hub's newest description with its age, so
 * that silent or unreachable hubs expire. Flooding itself is done by the hub (it owns the links).
 */
package io.traverse.hub.gossip;
