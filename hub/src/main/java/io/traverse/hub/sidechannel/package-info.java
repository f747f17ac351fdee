/**
 * The side channel (paper §3.3.1): control messages between nodes by node id, delivered to a
 * local node or forwarded hub by hub along the routing table with a hop limit; failures come back
 * to the sender as ERROR messages (no route, unknown node, hop limit, overload). Bounded: a node
 * has at most a fixed number of requests pending through its hub.
 */
package io.traverse.hub.sidechannel;
