/**
 * The hub's HTTP endpoint for operators: {@code GET /metrics} (Prometheus text format),
 * {@code GET /status} (the hub's view of the hub network as JSON) and a live dashboard
 * ({@code GET /} or {@code /dashboard}: a page from the hub's jar that draws the hub graph with
 * link round-trip times, nodes, names, connection set-ups by module and relay throughput, fed by
 * Server-Sent Events from {@code GET /dashboard/events}). Read-only; Netty HTTP codec on the hub's
 * own event loops.
 */
package io.traverse.hub.http;
