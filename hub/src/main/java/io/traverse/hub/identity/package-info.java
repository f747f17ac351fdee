/**
 * Where a hub's key, and with it its id, comes from (paper §3.2.1: every hub and node carries an
 * id that stays unique where addresses do not; here the id is a digest of the hub's Ed25519 key,
 * docs/security.md): a key file in the state directory, locked while the hub runs, or a new key at
 * every start; and how id conflicts between hubs are reported.
 */
package io.traverse.hub.identity;
