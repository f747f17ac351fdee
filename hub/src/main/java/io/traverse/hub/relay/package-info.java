/**
 * Relayed virtual connections (the routed module, paper §3.3.3): RELAY frames are delivered to a
 * local node or forwarded hub by hub along the routing table, each on its own, by its destination
 * node. Hubs keep no state per connection; flow control is end to end between the two nodes.
 */
package io.traverse.hub.relay;
