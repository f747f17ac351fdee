/**
 * The routed module: virtual connections relayed by hubs (paper §3.3.3), with end-to-end credit
 * flow control, half-close, reset and liveness probes, as a {@link java.net.Socket}.
 */
package io.traverse.routed;
