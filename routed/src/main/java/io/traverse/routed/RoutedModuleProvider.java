package io.traverse.routed;

import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.ModuleContext;

/** Makes the routed module known to {@link java.util.ServiceLoader} under the name {@value #NAME}. */
public final class RoutedModuleProvider implements ConnectionModuleProvider {
    public static final String NAME = "routed";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        return new RoutedModule(context);
    }
}
