package io.traverse.direct;

import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.ModuleContext;

/** Registers the {@code direct} module with the {@link java.util.ServiceLoader}. */
public final class DirectModuleProvider implements ConnectionModuleProvider {
    public static final String NAME = "direct";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        return new DirectModule(context);
    }
}
