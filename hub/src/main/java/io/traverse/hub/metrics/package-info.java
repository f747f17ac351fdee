/** The hub's Prometheus metrics (Micrometer): gauges of what it holds, counters of what it forwards and rejects. */
package io.traverse.hub.metrics;
