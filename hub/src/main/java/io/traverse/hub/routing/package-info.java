/**
 * Link-state routing between hubs (paper §3.3.1, with withdrawal): the graph of hub links listed
 * by both ends, and the table of shortest next hops computed over it by breadth-first search.
 * A link that one end stops listing, or a hub that drops out of the graph, loses its routes at
 * once; nothing stale is kept.
 */
package io.traverse.hub.routing;
