/**
 * The hub's status document: what one hub knows of the hub network (hubs and routes, its links,
 * nodes, names), served as JSON by the HTTP endpoint and printed by {@code traverse status}.
 */
package io.traverse.hub.status;
