package io.traverse.hublink;

import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.ModuleContext;

/** A test module whose creation fails (a broken module on the class path). Used only where {@code traverse.modules} names it. */
public final class FailingModuleProvider implements ConnectionModuleProvider {
    static final String NAME = "test-failing";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        throw new IllegalStateException("a module that cannot start");
    }
}
