package io.traverse.hublink;

import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.ModuleContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A test module that only hands its {@link ModuleContext} to the test (by node id), so tests can
 * advertise external addresses as the port-mapping module does. Used only where
 * {@code traverse.modules} names it.
 */
public final class AdvertisingModuleProvider implements ConnectionModuleProvider {
    static final String NAME = "test-advertiser";
    static final Map<String, ModuleContext> CONTEXTS = new ConcurrentHashMap<>();
    /** Node ids whose module was closed (a module that advertises must get the chance to withdraw). */
    static final java.util.Set<String> CLOSED = ConcurrentHashMap.newKeySet();

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        String id = context.localIdentity().id().orElseThrow().toString();
        CONTEXTS.put(id, context);
        return new ConnectionModule() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public void close() {
                CLOSED.add(id);
            }

            @Override
            public io.traverse.spi.ConnectionAttempt plan(io.traverse.spi.ConnectRequest request)
                    throws java.io.IOException {
                throw new io.traverse.spi.AttemptFailedException(
                        io.traverse.spi.FailureScope.MODULE, "a test module that connects nowhere");
            }
        };
    }
}
