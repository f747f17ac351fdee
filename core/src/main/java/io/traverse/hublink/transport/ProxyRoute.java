package io.traverse.hublink.transport;

import io.traverse.config.HttpProxy;
import io.traverse.spi.HttpTransport;
import java.net.InetSocketAddress;

/** The way to a hub through an HTTP proxy: the proxy's settings and its resolved address. */
public record ProxyRoute(HttpProxy proxy, InetSocketAddress address) {
    /** The way to {@code hub} through this proxy, as {@link HttpTransport} takes it. */
    HttpTransport.Way to(InetSocketAddress hub) {
        return new HttpTransport.Way(hub, proxy, address);
    }

    @Override
    public String toString() {
        return "HTTP proxy " + proxy.authority();
    }
}
