/**
 * The hub's metrics (Micrometer, exposed in Prometheus format): nodes, links, known and
 * reachable hubs, names, side messages and bytes forwarded, errors by kind, refused links by
 * reason. Operations support for the hub network of paper §3.3.1.
 */
package io.traverse.hub.metrics;
