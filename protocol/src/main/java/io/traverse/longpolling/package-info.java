/**
 * Long-poll sessions (papers/robusttrav-longpolling.txt): a hub link whose byte stream
 * travels in HTTP request and response bodies, for sites whose proxy refuses CONNECT. Shared by
 * the node ({@code io.traverse.longpoll.LongPollClient}) and the hub ({@code io.traverse.hub.longpoll}):
 * the channel that carries the link, the acknowledged byte buffer, the HTTP names.
 */
package io.traverse.longpolling;
