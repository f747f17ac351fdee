/**
 * The {@code reverse} connection module (paper §3.3.3 "Reverse"): when the target is behind a
 * firewall or NAT and the source is reachable, the target is asked through the hubs' side channel
 * to dial back. Not built yet: it needs the hub network (issues 3 and 4), so this artifact
 * registers no module and the chain skips it.
 */
package io.traverse.reverse;
