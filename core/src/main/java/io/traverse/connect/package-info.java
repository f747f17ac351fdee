/**
 * Outgoing connection setup: {@link io.traverse.connect.StaggeredRace} (RFC 8305-style staggered
 * parallel attempts) and its {@link io.traverse.connect.SocketAttempt}, which the direct module's
 * dialer (paper §3.2.2) builds on too, plain TCP for legacy destinations, and the
 * {@link io.traverse.connect.ModuleRacer} with its per-hub {@link io.traverse.connect.HubModuleCache}
 * (paper §3.3.4).
 */
package io.traverse.connect;
