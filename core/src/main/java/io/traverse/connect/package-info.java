/**
 * Outgoing connection setup: {@link io.traverse.connect.StaggeredRace} (RFC 8305-style staggered
 * parallel attempts), the {@link io.traverse.connect.DirectConnector} shared by every module that
 * ends in a kernel socket (paper §3.2.2), plain TCP for legacy destinations, and the
 * {@link io.traverse.connect.ModuleRacer} with its per-hub {@link io.traverse.connect.HubModuleCache}
 * (paper §3.3.4).
 */
package io.traverse.connect;
