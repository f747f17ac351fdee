/**
 * The hub link's ways through HTTP, for sites whose only way out is an HTTP proxy: a CONNECT tunnel
 * at the proxy for the hub link ({@link io.traverse.longpoll.ProxyTunnel}) and its data link
 * ({@link io.traverse.longpoll.ProxyConnect}), and, when the proxy refuses CONNECT, the long-poll
 * session (papers/robusttrav-longpolling.txt): {@link io.traverse.longpoll.LongPollClient} carries the
 * link's bytes in HTTP requests, through the proxy or straight to the hub's link port, over
 * {@link io.traverse.longpoll.SessionHttpConnection}s. Core's hub link finds them as its
 * {@link io.traverse.spi.HttpTransport}; the hub's end of a session is {@code io.traverse.hub.longpoll}.
 * The relayed connections that run over a session are routed's (the {@code longpoll} connection
 * module, {@code io.traverse.routed.LongPollModuleProvider}).
 */
package io.traverse.longpoll;
