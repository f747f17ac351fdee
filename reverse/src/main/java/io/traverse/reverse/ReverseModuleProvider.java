package io.traverse.reverse;

import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.ModuleContext;

/** Registers the {@code reverse} module with the {@link java.util.ServiceLoader}. */
public final class ReverseModuleProvider implements ConnectionModuleProvider {
    public static final String NAME = "reverse";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        return new ReverseModule(context);
    }
}
