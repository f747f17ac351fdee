/**
 * The {@code routed} connection module (paper §3.3.3 "Routed"): virtual connections relayed by one
 * or more hubs with per-connection credit windows. Not built yet (issue 4), so this artifact
 * registers no module and the chain skips it.
 */
package io.traverse.routed;
