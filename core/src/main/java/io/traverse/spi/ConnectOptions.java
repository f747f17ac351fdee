package io.traverse.spi;

import java.net.InetSocketAddress;

/**
 * What the application asked for before connecting that must be set before the TCP handshake:
 * a local address to bind (null: any) and a receive buffer size (0: system default; it sets the
 * TCP window scale, which only the SYN can carry).
 */
public record ConnectOptions(InetSocketAddress localAddress, int receiveBufferSize) {
    public static final ConnectOptions NONE = new ConnectOptions(null, 0);
}
