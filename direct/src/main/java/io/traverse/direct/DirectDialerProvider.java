package io.traverse.direct;

import io.traverse.spi.HandshakeDialer;
import io.traverse.spi.HandshakeDialerProvider;

/** Registers the direct module's {@link DirectConnector} as the node's {@link HandshakeDialer}. */
public final class DirectDialerProvider implements HandshakeDialerProvider {
    @Override
    public HandshakeDialer create(Setup setup) {
        return new DirectConnector(setup);
    }
}
