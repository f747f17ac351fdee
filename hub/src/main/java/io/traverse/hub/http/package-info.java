/**
 * The hub's HTTP port (Netty): Prometheus metrics and the JSON status document, for operators
 * and {@code traverse status}.
 */
package io.traverse.hub.http;
