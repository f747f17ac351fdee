/**
 * Where a hub's id comes from (paper §3.2.1: every hub and node carries an id that stays unique
 * where addresses do not). A hub named by its operator derives its id from the name; a hub left
 * with the default name keeps a random id generated once in a state file, so that two hubs on
 * hosts that share a host name (containers, cloned VMs, namespaces) still differ.
 * {@link io.traverse.hub.identity.HubIdSource} is the one place a later key-based id plugs in.
 */
package io.traverse.hub.identity;
