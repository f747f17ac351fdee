package io.traverse.hublink;

import io.traverse.reverse.ReverseModuleProvider;
import io.traverse.spi.AttemptFailedException;
import io.traverse.spi.ConnectRequest;
import io.traverse.spi.ConnectionAttempt;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.FailureScope;
import io.traverse.spi.ModuleContext;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A test hook like {@link GatedDirectModule}: the real reverse module under the name
 * {@value #NAME}, whose first {@link #failuresLeft} attempts of the JVM fail before they ask
 * anything (a dial-back path that opens later). Nodes use it only when {@code traverse.modules}
 * names it, and then not the reverse module itself (the two would answer the same service).
 */
public final class GatedReverseModule implements ConnectionModuleProvider {
    static final String NAME = "gated-reverse";
    static final AtomicInteger failuresLeft = new AtomicInteger();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        ConnectionModule reverse = new ReverseModuleProvider().create(context);
        return new ConnectionModule() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public ConnectionAttempt plan(ConnectRequest request) throws java.io.IOException {
                if (failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    throw new AttemptFailedException(FailureScope.MODULE, "the gated path is still closed");
                }
                return reverse.plan(request);
            }

            @Override
            public void close() {
                reverse.close();
            }
        };
    }
}
