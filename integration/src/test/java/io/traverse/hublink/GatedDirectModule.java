package io.traverse.hublink;

import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.FailureScope;
import io.traverse.spi.ModuleContext;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test hook, on the test class path only: the direct module ({@code DirectConnector}, a real
 * kernel socket) under the name {@value #NAME}, which fails its first {@link #failuresLeft}
 * attempts of the JVM. It stands for a path that opens after a connection was made another way
 * (a firewall rule lifted, a NAT mapping appearing), which the simulated firewall cannot do at
 * run time. Nodes use it only when {@code traverse.modules} names it.
 */
public final class GatedDirectModule implements ConnectionModuleProvider {
    static final String NAME = "gated-direct";
    /** Attempts that still fail before the path "opens". */
    static final AtomicInteger failuresLeft = new AtomicInteger();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        return new ConnectionModule() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public ConnectionAttempt plan(ConnectRequest request) throws java.io.IOException {
                ConnectionAttempt direct = context.handshakeDialer().attempt(request);
                return new ConnectionAttempt() {
                    @Override
                    public java.net.Socket connect() throws java.io.IOException {
                        if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                            throw new AttemptFailedException(FailureScope.MODULE, "the gated path is still closed");
                        }
                        return direct.connect();
                    }

                    @Override
                    public void cancel() {
                        direct.cancel();
                    }
                };
            }
        };
    }
}
