/**
 * Relayed virtual connections (the routed module, paper §3.3.3): RELAY frames are delivered to a
 * local node or forwarded hub by hub along the routing table, each on its own, by its destination
 * node. Flow control is end to end between the two nodes; a hub keeps per connection only the
 * small entry its admission limits count with ({@link io.traverse.hub.relay.RelayedConnections}).
 */
package io.traverse.hub.relay;
