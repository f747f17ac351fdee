package io.traverse.hublink;

import io.traverse.config.HttpProxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The way to a hub through an HTTP proxy: the proxy's settings and its resolved
 * address. The hub link asks it with Netty's {@code HttpProxyHandler}; the data link, which is a
 * plain non-blocking channel, writes the same CONNECT request itself ({@link #connectRequest}).
 */
record ProxyRoute(HttpProxy proxy, InetSocketAddress address) {
    /** Longest CONNECT answer (status line and headers) the data link reads. */
    static final int MAX_ANSWER = 8 * 1024;

    /** The CONNECT request for {@code hub}, with basic authentication when a user is set. */
    byte[] connectRequest(InetSocketAddress hub) {
        String target = authority(hub);
        StringBuilder request = new StringBuilder()
                .append("CONNECT ")
                .append(target)
                .append(" HTTP/1.1\r\n")
                .append("Host: ")
                .append(target)
                .append("\r\n");
        proxy.basicAuthorization()
                .ifPresent(
                        a -> request.append("Proxy-Authorization: ").append(a).append("\r\n"));
        return request.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** {@code host:port} of a hub as a CONNECT target: its name if it has one unresolved, else its address. */
    static String authority(InetSocketAddress hub) {
        return HttpProxy.authorityOf(hub);
    }

    /** Says that the proxy would not tunnel to the hub, naming both and the proxy's answer. */
    String refusal(InetSocketAddress hub, String statusLine) {
        return "HTTP proxy " + proxy.authority() + " (" + proxy.origin() + ") refused CONNECT to hub " + authority(hub)
                + ": it answered '" + statusLine + "'"
                + (statusLine.contains(" 407 ") || statusLine.contains(" 401 ")
                        ? " (it wants a valid user and password: set them in traverse.http.proxy)"
                        : "");
    }

    @Override
    public String toString() {
        return "HTTP proxy " + proxy.authority();
    }
}
