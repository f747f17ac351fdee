/**
 * The hub's HTTP endpoint for operators: {@code GET /metrics} (Prometheus text format) and
 * {@code GET /status} (the hub's view of the hub network as JSON). Read-only; Netty HTTP codec on
 * the hub's own event loops.
 */
package io.traverse.hub.http;
