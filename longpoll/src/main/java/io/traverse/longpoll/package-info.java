/**
 * The long-poll transport of the hub link (papers/robusttrav-longpolling.txt), for sites whose
 * only way out is an HTTP proxy that refuses CONNECT: {@link io.traverse.longpoll.LongPollClient}
 * carries the link's bytes in HTTP requests, through the proxy or straight to the hub's link port,
 * over {@link io.traverse.longpoll.SessionHttpConnection}s. Core's hub link finds it as its
 * {@link io.traverse.spi.LongPollTransport}; the hub's end is {@code io.traverse.hub.longpoll}. The
 * relayed connections that run over such a link are routed's (the {@code longpoll} connection
 * module, {@code io.traverse.routed.LongPollModuleProvider}).
 */
package io.traverse.longpoll;
