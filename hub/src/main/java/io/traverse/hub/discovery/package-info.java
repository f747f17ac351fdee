/**
 * The hub's answer to discovery probes: a self-contained UDP responder that tells
 * nodes on the site network which hub is here and at which link addresses, with bounded,
 * rate-limited answers. The datagram format lives in traverse-protocol ({@code io.traverse.discovery}).
 */
package io.traverse.hub.discovery;
