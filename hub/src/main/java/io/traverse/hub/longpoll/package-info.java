/**
 * Long-poll sessions on the hub's link port (RobustTrav long polling,
 * papers/robusttrav-longpolling.txt): an HTTP request on the link port opens or serves a session
 * whose request bodies carry a link's byte stream, so a node behind a proxy that refuses CONNECT
 * still has an ordinary link. Format in docs/protocol.md, "Long-poll sessions".
 */
package io.traverse.hub.longpoll;
