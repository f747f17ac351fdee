package io.traverse.splice;

import io.traverse.config.ModuleKey;
import io.traverse.spi.ConnectionModule;
import io.traverse.spi.ConnectionModuleProvider;
import io.traverse.spi.ModuleContext;
import java.util.List;

/** Registers the {@code splice} module with the {@link java.util.ServiceLoader}. */
public final class SpliceModuleProvider implements ConnectionModuleProvider {
    public static final String NAME = "splice";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ConnectionModule create(ModuleContext context) {
        return new SpliceModule(context);
    }

    @Override
    public List<ModuleKey<?>> keys() {
        return SpliceSettings.KEYS;
    }
}
